//! Writes darshan-util 3.5.0's C headers for libdarshan-util into a
//! directory (scripts/install.sh: PREFIX/include), from the format crate.
//!
//! usage: darshan-util-headers DIR

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir] = args.as_slice() else {
        eprintln!("usage: darshan-util-headers DIR");
        return ExitCode::from(2);
    };
    for (name, text) in darshan_logutils::headers::headers() {
        let path = std::path::Path::new(dir).join(&name);
        let written = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, text));
        if let Err(e) = written {
            eprintln!("darshan-util-headers: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
