use clap::Parser;

use super::*;

#[derive(Debug, Parser)]
struct Review {
    #[command(flatten)]
    args: ReviewArgs,
}

fn choice(argv: &[&str], env: &[(&str, &str)]) -> Option<ModelProvider> {
    let args = Review::try_parse_from(["review", "contract.md"].iter().chain(argv))
        .unwrap()
        .args;
    let lookup = |name: &str| {
        env.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    };
    let settings = AgentSettings::from_lookup(lookup).unwrap();
    agent_choice(&args, &settings, lookup)
}

const ON: (&str, &str) = ("USE_REACT_AGENT", "true");
const LOCAL: (&str, &str) = ("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1");
const CLAUDE: (&str, &str) = ("ANTHROPIC_API_KEY", "sk-ant");

#[test]
fn the_environment_turns_the_agent_on_only_with_a_model() {
    assert_eq!(choice(&[], &[ON, LOCAL]), Some(ModelProvider::OpenAi));
    assert_eq!(choice(&[], &[ON, CLAUDE]), Some(ModelProvider::Anthropic));
    assert_eq!(
        choice(&[], &[ON, LOCAL, CLAUDE]),
        Some(ModelProvider::OpenAi)
    );
    assert_eq!(choice(&[], &[ON]), None, "no model configured");
    assert_eq!(choice(&[], &[LOCAL]), None, "USE_REACT_AGENT unset");
    assert_eq!(choice(&[], &[("USE_REACT_AGENT", "false"), LOCAL]), None);
}

#[test]
fn an_explicit_flag_wins_over_the_environment() {
    assert_eq!(choice(&["--no-agent"], &[ON, LOCAL]), None);
    assert_eq!(choice(&["--agent"], &[]), Some(ModelProvider::OpenAi));
    assert_eq!(
        choice(&["--agent", "react"], &[CLAUDE]),
        Some(ModelProvider::Anthropic)
    );
    assert_eq!(
        choice(&["--agent", "--provider", "anthropic"], &[LOCAL]),
        Some(ModelProvider::Anthropic)
    );
    assert_eq!(
        choice(&["--provider", "anthropic"], &[ON, LOCAL]),
        Some(ModelProvider::Anthropic)
    );
    let both = Review::try_parse_from(["review", "c.md", "--agent", "--no-agent"]);
    assert!(both.is_err(), "--agent and --no-agent conflict");
}
