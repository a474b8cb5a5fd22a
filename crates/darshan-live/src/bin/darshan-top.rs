//! darshan-top: the jobs and processes doing I/O on this node, from the
//! crash-safe files of running processes (docs/live.md): read and write
//! rates, operations and metadata operations per second, the busiest
//! files; refreshed every interval. `--once --json` prints one interval
//! for scripts. Reads files only: the programs watched pay nothing.
#![forbid(unsafe_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use darshan_live::find::{find_files, my_uid};
use darshan_live::view::{bytes, per_second, screen, Filter, Rates, Screen, SortBy};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Paragraph, Row, Table};

#[derive(Parser)]
#[command(
    name = "darshan-top",
    version,
    about = "The jobs and processes doing I/O on this node, live, from Darshan's crash-safe files"
)]
struct Opts {
    #[command(flatten)]
    src: darshan_live::find::Sources,
    /// Only this job (its job key or job id).
    #[arg(long)]
    job: Option<String>,
    /// Only this user's processes (uid; root sees everyone's, others their own).
    #[arg(long)]
    uid: Option<i64>,
    /// Sort by.
    #[arg(long, value_enum, default_value = "bytes")]
    sort: SortBy,
    /// One interval, printed, then exit.
    #[arg(long)]
    once: bool,
    /// With --once: JSON instead of text.
    #[arg(long, requires = "once")]
    json: bool,
}

/// " (N busy modules kept from before)" when some were (docs/live.md).
fn busy_note(s: &Screen) -> String {
    if s.stale_modules > 0 {
        format!(" ({} busy modules kept from before)", s.stale_modules)
    } else {
        String::new()
    }
}

fn text(s: &Screen) -> String {
    let mut o = String::new();
    o.push_str(&format!(
        "darshan-top: {} jobs, {} processes over {:.1} s, by {}{}\n",
        s.jobs.len(),
        s.processes.len(),
        s.seconds,
        s.sort,
        busy_note(s)
    ));
    o.push_str(&format!(
        "{:<28} {:>8} {:>5} {:>12} {:>12} {:>10} {:>10}  {}\n",
        "JOB", "UID", "PROCS", "READ", "WRITE", "OPS/S", "META/S", "COMMAND"
    ));
    for j in &s.jobs {
        o.push_str(&format!(
            "{:<28} {:>8} {:>5} {:>12} {:>12} {:>10.0} {:>10.0}  {}\n",
            j.job_key,
            j.uid,
            j.processes,
            per_second(j.rates.read_bytes),
            per_second(j.rates.write_bytes),
            j.rates.ops,
            j.rates.meta_ops,
            j.exe
        ));
    }
    if !s.busiest.is_empty() {
        o.push_str("busiest files this interval:\n");
        for (n, r, w) in &s.busiest {
            o.push_str(&format!("  {n}  read {}, written {}\n", bytes(*r), bytes(*w)));
        }
    }
    o
}

fn once(o: &Opts, dirs: &[PathBuf], uid: u32) -> ExitCode {
    let mut t = o.src.tracker();
    t.interval(&find_files(dirs, uid));
    std::thread::sleep(Duration::from_secs_f64(o.src.interval));
    let iv = t.interval(&find_files(dirs, uid));
    let f = Filter { job: o.job.clone(), uid: o.uid };
    let s = screen(&iv, o.sort, &f);
    let out = if o.json { serde_json::to_string_pretty(&s).unwrap_or_default() + "\n" } else { text(&s) };
    match std::io::stdout().write_all(out.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(141),
        Err(e) => {
            eprintln!("darshan-top: {e}");
            ExitCode::from(1)
        }
    }
}

fn draw(frame: &mut ratatui::Frame, s: &Screen, filter: &Filter) {
    let [head, jobs, procs, files, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Percentage(35),
        Constraint::Min(5),
        Constraint::Length(7),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let title = format!(
        "darshan-top  {} jobs  {} processes  interval {:.1} s  sorted by {}{}{}",
        s.jobs.len(),
        s.processes.len(),
        s.seconds,
        s.sort,
        filter.job.as_ref().map(|j| format!("  job {j}")).unwrap_or_default(),
        busy_note(s)
    );
    frame.render_widget(Paragraph::new(title).style(Style::new().add_modifier(Modifier::BOLD)), head);
    frame.render_widget(job_table(s), jobs);
    frame.render_widget(process_table(s), procs);
    let file_rows = s
        .busiest
        .iter()
        .map(|(n, r, w)| Row::new(vec![n.clone(), format!("{} read", bytes(*r)), format!("{} written", bytes(*w))]));
    let fw = [Constraint::Min(20), Constraint::Length(18), Constraint::Length(20)];
    frame.render_widget(
        Table::new(file_rows, fw).block(Block::bordered().title(" busiest files this interval ")),
        files,
    );
    frame.render_widget(Paragraph::new("q quit   s sort (bytes, ops, meta)   a all jobs"), keys);
}

/// The columns of the jobs' and the processes' tables: three of their
/// own, then the rates, then the command.
const COLUMNS: [Constraint; 9] = [
    Constraint::Length(26),
    Constraint::Length(7),
    Constraint::Length(7),
    Constraint::Length(12),
    Constraint::Length(12),
    Constraint::Length(9),
    Constraint::Length(9),
    Constraint::Length(6),
    Constraint::Min(10),
];

/// A row: its first three cells, the interval's rates, the command.
fn rate_row(first: [String; 3], r: &Rates, exe: &str) -> Row<'static> {
    let [a, b, c] = first;
    Row::new(vec![
        a,
        b,
        c,
        per_second(r.read_bytes),
        per_second(r.write_bytes),
        format!("{:.0}", r.ops),
        format!("{:.0}", r.meta_ops),
        format!("{:.2}", r.io_time),
        exe.to_string(),
    ])
}

fn job_table(s: &Screen) -> Table<'static> {
    let rows = s.jobs.iter().map(|j| {
        rate_row([j.job_key.clone(), j.uid.to_string(), format!("{}/{}", j.processes, j.ranks)], &j.rates, &j.exe)
    });
    let header = Row::new(["JOB", "UID", "PROC/RK", "READ", "WRITE", "OPS/S", "META/S", "IO", "COMMAND"]);
    Table::new(rows, COLUMNS)
        .header(header.style(Style::new().add_modifier(Modifier::BOLD)))
        .block(Block::bordered().title(" jobs "))
}

fn process_table(s: &Screen) -> Table<'static> {
    let rows = s.processes.iter().map(|p| {
        let state = if p.ended { "ended" } else { "running" };
        rate_row([p.job_key.clone(), p.rank.to_string(), state.into()], &p.rates, &p.exe)
    });
    let header = Row::new(["JOB", "RANK", "STATE", "READ", "WRITE", "OPS/S", "META/S", "IO", "COMMAND"]);
    Table::new(rows, COLUMNS)
        .header(header.style(Style::new().add_modifier(Modifier::BOLD)))
        .block(Block::bordered().title(" processes "))
}

fn interactive(o: &Opts, dirs: &[PathBuf], uid: u32) -> std::io::Result<()> {
    let mut t = o.src.tracker();
    let mut sort = o.sort;
    let mut filter = Filter { job: o.job.clone(), uid: o.uid };
    let every = Duration::from_secs_f64(o.src.interval.max(0.05));
    let mut terminal = ratatui::init();
    let mut iv = t.interval(&find_files(dirs, uid));
    let mut next = Instant::now() + every;
    let result = loop {
        let s = screen(&iv, sort, &filter);
        if let Err(e) = terminal.draw(|f| draw(f, &s, &filter)) {
            break Err(e);
        }
        let wait = next.saturating_duration_since(Instant::now());
        match event::poll(wait) {
            Ok(true) => match event::read() {
                Ok(Event::Key(k)) if k.kind == KeyEventKind::Press => match k.code {
                    KeyCode::Char('q') | KeyCode::Esc => break Ok(()),
                    KeyCode::Char('s') => sort = sort.next(),
                    KeyCode::Char('a') => filter.job = None,
                    _ => {}
                },
                Ok(_) => {}
                Err(e) => break Err(e),
            },
            Ok(false) => {
                iv = t.interval(&find_files(dirs, uid));
                next = Instant::now() + every;
            }
            Err(e) => break Err(e),
        }
    };
    ratatui::restore();
    result
}

fn main() -> ExitCode {
    darshan_util::cli::one_line_panics("darshan-top");
    let o = Opts::parse();
    let dirs = o.src.crash_safe_dirs();
    let uid = my_uid();
    if o.once {
        return once(&o, &dirs, uid);
    }
    match interactive(&o, &dirs, uid) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("darshan-top: {e}");
            ExitCode::from(1)
        }
    }
}
