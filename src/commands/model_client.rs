//! The model client a review asks for: a provider configured from the environment
//! (OPENAI_* or ANTHROPIC_*), with the model, endpoint and request rate given; shared by
//! `review` and the `review_contract` tool of `serve`.

use std::sync::Arc;

use clausewright_skills::review::ModelProvider;
use toolwright::agent::{AnthropicClient, AnthropicConfig, LlmClient, OpenAiClient, OpenAiConfig};

use super::CliError;

/// Which model of a provider, at which endpoint, how fast (unset: the environment's).
pub struct ModelChoice<'a> {
    /// The model name.
    pub model: Option<&'a str>,
    /// The endpoint.
    pub base_url: Option<&'a str>,
    /// Requests per minute at most (0: no cap).
    pub rpm: u32,
}

/// The model client of `provider` configured from the environment and `choice`, with its
/// endpoint; an error names `flag` (what asked for a model) and the variable missing.
pub fn model_client(
    provider: ModelProvider,
    choice: &ModelChoice<'_>,
    flag: &str,
) -> Result<(Arc<dyn LlmClient>, String), CliError> {
    let usage = |e: toolwright::agent::LlmError| CliError::Usage(e.to_string());
    match provider {
        ModelProvider::Anthropic => {
            let mut config = AnthropicConfig::from_env().map_err(|_| {
                CliError::Usage(format!(
                    "{flag} with --provider anthropic needs ANTHROPIC_API_KEY in the environment"
                ))
            })?;
            if let Some(model) = choice.model {
                config.model = model.to_string();
            }
            if let Some(url) = choice.base_url {
                config.base_url = url.to_string();
            }
            let config = config.with_requests_per_minute(choice.rpm);
            let endpoint = config.base_url.clone();
            Ok((
                Arc::new(AnthropicClient::new(config).map_err(usage)?),
                endpoint,
            ))
        }
        ModelProvider::OpenAi => {
            let mut config = OpenAiConfig::from_env();
            if let Some(model) = choice.model {
                config.model = model.to_string();
            }
            if let Some(url) = choice.base_url {
                config.base_url = url.to_string();
            }
            if config.api_key.is_none() && config.base_url.contains("api.openai.com") {
                return Err(CliError::Usage(format!(
                    "{flag} with the OpenAI API needs OPENAI_API_KEY in the environment (or --base-url of a local server)"
                )));
            }
            let config = config.with_requests_per_minute(choice.rpm);
            let endpoint = config.base_url.clone();
            Ok((
                Arc::new(OpenAiClient::new(config).map_err(usage)?),
                endpoint,
            ))
        }
    }
}
