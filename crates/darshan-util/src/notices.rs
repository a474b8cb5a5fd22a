//! What darshan-parser and darshan-dxt-parser say about modules they do
//! not print or print only in part, word for word as the C tools (which
//! differ: the DXT tool spells "unecessary", and puts no `#` before its
//! no-handler warning).

use darshan_log::modules::{is_known, module_name, APMPI, APXC, NULL};

/// The tool whose wording is used.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Parser,
    DxtParser,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Parser => "darshan-parser",
            Tool::DxtParser => "darshan-dxt-parser",
        }
    }
}

/// Why module `m`'s data is skipped with a warning on stderr: an id the
/// utilities do not know, or a module they have no handler for (NULL, the
/// template; APXC/APMPI, Cray/HPE add-ons). None: the tool handles it.
pub fn unhandled(tool: Tool, m: usize) -> Option<String> {
    if !is_known(m) {
        return Some(format!(
            "# Warning: module id {m} is unknown. You may need a newer version of the Darshan utilities to parse it."
        ));
    }
    if m == NULL || m == APXC || m == APMPI {
        let hash = if tool == Tool::Parser { "# " } else { "" };
        return Some(format!(
            "{hash}Warning: no log utility handlers defined for module {}, SKIPPING.",
            module_name(m)
        ));
    }
    None
}

/// The block for a module whose data is incomplete (its partial flag):
/// a warning before the data with --show-incomplete, else an error on
/// stderr that ends with how to see the data anyway.
pub fn incomplete(tool: Tool, module: &str, error: bool) -> String {
    let tag = if error { "*ERROR*" } else { "*WARNING*" };
    let word = if tool == Tool::DxtParser { "unecessary" } else { "unnecessary" };
    let mut s = format!(
        "\n# {tag}: The {module} module contains incomplete data!\n#            This happens when a module runs out of\n#            memory to store new record data.\n\n# To avoid this error, consult the darshan-runtime\n# documentation and consider setting the NAME_EXCLUDE\n# variable in a run-time configuration file to prevent\n# Darshan from instrumenting {word} files.\n"
    );
    if error {
        s.push_str(&format!(
            "\n# You can display the (incomplete) data that is\n# present in this log using the --show-incomplete\n# option to {}.\n",
            tool.name()
        ));
    }
    s
}
