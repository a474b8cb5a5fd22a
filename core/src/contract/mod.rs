//! What a module is and is handed: the contract (`module`: `Module`,
//! `ModuleSpec`, `ModuleState`), what it may know of the runtime (`env`),
//! the record sets that do its bookkeeping (`records`, `handles`,
//! `var_records`) and the heat maps (`heatmap`).

pub mod env;
pub mod handles;
pub mod heatmap;
pub mod module;
pub mod records;
pub mod var_records;
