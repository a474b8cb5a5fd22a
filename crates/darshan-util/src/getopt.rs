//! Long options as glibc's `getopt_long(argc, argv, "", opts, ...)` reads
//! them, for the tools that are drop-ins for C's: `--name`, `--name=value`
//! and `--name value`; any unique prefix of a name (`--tot` is `--total`),
//! an exact name winning over the names it prefixes; options anywhere
//! among the operands (GNU permutes them), `--` ending the options. Its
//! complaints are glibc's, word for word, for the tool to print before
//! its usage as C's does.

/// One long option: its name and whether it takes a value.
#[derive(Clone, Copy, Debug)]
pub struct LongOpt {
    pub name: &'static str,
    pub takes_value: bool,
}

/// One option found, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The option's full name and its value.
    Opt(&'static str, Option<String>),
    /// What glibc prints on stderr for a bad option (without the newline);
    /// C's tools then print their usage.
    Bad(String),
}

/// The options in order, and the operands in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub found: Vec<Found>,
    pub operands: Vec<String>,
}

/// Reads `args` (without the program name) against `opts`; `prog` is how
/// glibc names the program in its complaints (argv[0]).
pub fn getopt_long(prog: &str, args: &[String], opts: &[LongOpt]) -> Parsed {
    let mut p = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            // glibc names the option as given, "=value" and all.
            let opt = match lookup(name, opts) {
                Ok(o) => o,
                Err(Lookup::Unknown) => {
                    p.found.push(Found::Bad(format!("{prog}: unrecognized option '--{body}'")));
                    continue;
                }
                Err(Lookup::Ambiguous(all)) => {
                    let list: String = all.iter().map(|n| format!(" '--{n}'")).collect();
                    p.found.push(Found::Bad(format!("{prog}: option '--{body}' is ambiguous; possibilities:{list}")));
                    continue;
                }
            };
            match (opt.takes_value, value) {
                (false, Some(_)) => {
                    p.found.push(Found::Bad(format!("{prog}: option '--{}' doesn't allow an argument", opt.name)));
                }
                (false, None) => p.found.push(Found::Opt(opt.name, None)),
                (true, Some(v)) => p.found.push(Found::Opt(opt.name, Some(v))),
                (true, None) => match args.get(i) {
                    Some(v) => {
                        p.found.push(Found::Opt(opt.name, Some(v.clone())));
                        i += 1;
                    }
                    None => {
                        p.found.push(Found::Bad(format!("{prog}: option '--{}' requires an argument", opt.name)));
                    }
                },
            }
        } else if a.len() > 1 && a.starts_with('-') {
            // No short options: each letter is an invalid option.
            for ch in a[1..].chars() {
                p.found.push(Found::Bad(format!("{prog}: invalid option -- '{ch}'")));
            }
        } else {
            p.operands.push(a.clone());
        }
    }
    p
}

enum Lookup {
    Unknown,
    Ambiguous(Vec<&'static str>),
}

fn lookup(name: &str, opts: &[LongOpt]) -> Result<LongOpt, Lookup> {
    if let Some(o) = opts.iter().find(|o| o.name == name) {
        return Ok(*o);
    }
    let matches: Vec<&LongOpt> = opts.iter().filter(|o| o.name.starts_with(name)).collect();
    match matches.as_slice() {
        [] => Err(Lookup::Unknown),
        [one] => Ok(**one),
        // glibc takes several matches that are all the same option (same
        // argument kind) as one; our tables have no aliases.
        many => Err(Lookup::Ambiguous(many.iter().map(|o| o.name).collect())),
    }
}
