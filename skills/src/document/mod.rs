//! Contract documents: the clause tree model and how it is read from text or JSON.

mod model;

pub use model::{chinese_numeral, normalize_clause_id, Clause, CrossReference, DocumentStructure};
