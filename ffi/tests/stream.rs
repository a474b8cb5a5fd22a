//! darshan-stream against real servers started here: a NATS server
//! (Debian's nats-server), read with the NATS protocol itself, and
//! Debian's Prometheus scraping the daemon. A program writes 4 KiB blocks
//! for a few seconds under the runtime: the published figures grow while
//! it runs and add up to the counters of its final log
//! (tests/programs/live_writer.c, docs/live.md).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use darshan_log::counters::posix as px;
use darshan_log::modules::POSIX;
use darshan_test_support::{free_port, SpawnWatched};

/// A server process, killed when dropped (a failing test leaves none).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(cmd: &mut Command, port: u16) -> Server {
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn_watched();
    let mut server = Server(child);
    let until = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < until, "{cmd:?} did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Listening there is this server, not one that had the port first
    // (this one would then have failed to bind and exited).
    std::thread::sleep(Duration::from_millis(100));
    assert!(server.0.try_wait().unwrap().is_none(), "{cmd:?} exited: port {port} was not free");
    server
}

/// The final log's POSIX bytes written and writes, over all records.
fn final_posix(d: &Path) -> (i64, i64) {
    let log = darshan_log::LogFile::open(only_log(d)).unwrap();
    let recs = log.records(POSIX).unwrap();
    (recs.iter().map(|r| r.counters[px::BYTES_WRITTEN]).sum(), recs.iter().map(|r| r.counters[px::WRITES]).sum())
}

fn writer(d: &Path, job: &str, secs: &str) -> Child {
    let exe = compile("live_writer", d, &["-pthread"]);
    let mut cmd = instrumented(&exe, d);
    // At an ordinary pace (a write every ~50 us): a record updated
    // millions of times a second is never quiet long enough to be copied
    // whole, and is kept from its last quiet copy (docs/live.md).
    cmd.arg(d.join("data/shared")).args(["1", secs, "50"]);
    cmd.env("SLURM_JOB_ID", job).env("SLURM_STEP_ID", "0").env("SLURM_PROCID", "2").env("SLURM_NTASKS", "4");
    start_ready(&mut cmd).0
}

fn stream(d: &Path, extra: &[&str]) -> Server {
    let child = Command::new(built("darshan-stream"))
        .args(["--interval", "0.3", "--node", "testnode", "--dir"])
        .arg(d.join("mmap"))
        .arg("--log-dir")
        .arg(d.join("logs"))
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn_watched();
    Server(child)
}

fn sigterm(s: &mut Server) -> std::process::ExitStatus {
    let st = Command::new("kill").args(["-TERM", &s.0.id().to_string()]).status().unwrap();
    assert!(st.success());
    s.0.wait().unwrap()
}

/// `buf` filled from `r`, across the read timeouts (a body may arrive in
/// pieces on a busy machine).
fn read_all(r: &mut impl Read, buf: &mut [u8]) {
    let mut at = 0;
    let until = std::time::Instant::now() + Duration::from_secs(30);
    while at < buf.len() && std::time::Instant::now() < until {
        match r.read(&mut buf[at..]) {
            Ok(0) => break,
            Ok(n) => at += n,
            Err(_) => continue,
        }
    }
    assert_eq!(at, buf.len(), "a NATS message's body was cut short");
}

/// Every message on `darshan.live.>`, read with the NATS protocol (INFO,
/// CONNECT, SUB, then MSG frames; PINGs answered) until `stop`.
fn subscribe(port: u16, stop: Arc<Mutex<bool>>) -> std::thread::JoinHandle<Vec<(String, serde_json::Value)>> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    s.write_all(b"CONNECT {\"verbose\":false,\"pedantic\":false}\r\nSUB darshan.live.> 1\r\nPING\r\n").unwrap();
    std::thread::spawn(move || {
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut got = Vec::new();
        let mut line = String::new();
        loop {
            // A read that timed out part way through a line keeps what it
            // read: clearing it lost that message (its header's rest and
            // body then parsed as lines of their own).
            match r.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) if !line.ends_with('\n') => continue,
                Ok(_) => {}
                Err(_) => {
                    if *stop.lock().unwrap() {
                        break;
                    }
                    continue;
                }
            }
            let line = std::mem::take(&mut line);
            if line.starts_with("PING") {
                let _ = s.write_all(b"PONG\r\n");
            } else if let Some(rest) = line.strip_prefix("MSG ") {
                let f: Vec<&str> = rest.split_whitespace().collect();
                let n: usize = f.last().unwrap().parse().unwrap();
                let mut body = vec![0u8; n + 2];
                read_all(&mut r, &mut body);
                got.push((f[0].to_string(), serde_json::from_slice(&body[..n]).unwrap()));
            }
        }
        got
    })
}

#[test]
fn nats_messages_grow_while_it_runs_and_add_up_to_the_final_log() {
    let d = scratch("stream-nats");
    let port = free_port();
    let _nats = start(Command::new("nats-server").args(["-a", "127.0.0.1", "-p", &port.to_string()]), port);
    let stop = Arc::new(Mutex::new(false));
    let sub = subscribe(port, stop.clone());
    let mut daemon = stream(&d, &["--nats", &format!("nats://127.0.0.1:{port}")]);
    let mut w = writer(&d, "8080", "2");
    assert!(w.wait().unwrap().success());
    // Long enough for the daemon to see the file gone and read the log.
    std::thread::sleep(Duration::from_millis(1200));
    assert!(sigterm(&mut daemon).success(), "darshan-stream exits cleanly on SIGTERM");
    std::thread::sleep(Duration::from_millis(300));
    *stop.lock().unwrap() = true;
    let msgs = sub.join().unwrap();
    let procs: Vec<&serde_json::Value> = msgs
        .iter()
        .filter(|(s, m)| s == "darshan.live.process" && m["job_key"] == "slurm-8080.0")
        .map(|(_, m)| m)
        .collect();
    let bytes = |m: &serde_json::Value| m["modules"]["POSIX"]["bytes_written"].as_i64().unwrap_or(0);
    let during = procs.iter().filter(|m| m["ended"] == false && bytes(m) > 0).count();
    assert!(during >= 3, "the figures grew while it ran: {during} messages of {}", procs.len());
    let ended: Vec<_> = procs.iter().filter(|m| m["ended"] == true).collect();
    assert_eq!(ended.len(), 1, "its end is said once");
    let m = procs[0];
    assert_eq!(
        (m["rank"].as_i64(), m["job_id"].as_i64(), m["ProducerName"].as_str()),
        (Some(2), Some(8080), Some("testnode"))
    );
    assert_eq!((m["file"].as_str(), m["schema"].as_str()), (Some("N/A"), Some("darshan_live")));
    let writes: i64 = procs.iter().map(|m| m["modules"]["POSIX"]["writes"].as_i64().unwrap_or(0)).sum();
    assert_eq!((procs.iter().map(|m| bytes(m)).sum::<i64>(), writes), final_posix(&d));
    let jobs = msgs.iter().filter(|(s, _)| s == "darshan.live.job").count();
    assert!(jobs >= 3, "{jobs} job messages");
}

/// The body of `path`'s answer; empty when nothing answers (yet).
fn http_get(port: u16, path: &str) -> String {
    // Refused: Prometheus not (yet, or any more) at its port. The callers
    // poll until a deadline, and `prometheus` says when the server died.
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else { return String::new() };
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default()
}

fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"_-.".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Prometheus's answer to `query`: the first sample's value.
fn prom_value(port: u16, query: &str) -> Option<f64> {
    let body = http_get(port, &format!("/api/v1/query?query={}", encode(query)));
    let v: serde_json::Value = serde_json::from_str(&body).ok()?;
    v["data"]["result"][0]["value"][1].as_str()?.parse().ok()
}

/// Debian's Prometheus scraping the daemon's `metrics` port every second,
/// started and scraping once before this returns: (server, its web port).
fn prometheus(d: &Path, metrics: u16) -> (Server, u16) {
    let web = free_port();
    let cfg = d.join("prometheus.yml");
    std::fs::write(
        &cfg,
        format!("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: darshan\n    static_configs:\n      - targets: ['127.0.0.1:{metrics}']\n"),
    )
    .unwrap();
    let mut prom = start(
        Command::new("prometheus")
            .arg(format!("--config.file={}", cfg.display()))
            .arg(format!("--storage.tsdb.path={}", d.join("tsdb").display()))
            .arg(format!("--web.listen-address=127.0.0.1:{web}")),
        web,
    );
    let until = Instant::now() + Duration::from_secs(60);
    while prom_value(web, "up{job=\"darshan\"}") != Some(1.0) {
        assert!(Instant::now() < until, "Prometheus never scraped the daemon");
        assert!(prom.0.try_wait().unwrap().is_none(), "Prometheus exited (port {web} taken after it was chosen?)");
        std::thread::sleep(Duration::from_millis(200));
    }
    (prom, web)
}

/// Polls `query` until it answers `want` (at most 15 s): the last answer.
fn prom_until(web: u16, query: &str, want: f64) -> Option<f64> {
    let until = Instant::now() + Duration::from_secs(15);
    let mut last = None;
    while Instant::now() < until {
        last = prom_value(web, query);
        if last == Some(want) {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    last
}

#[test]
fn prometheus_scrapes_figures_that_grow_and_end_at_the_final_log() {
    let d = scratch("stream-prom");
    let metrics = free_port();
    let mut daemon = stream(&d, &["--prometheus", &format!("127.0.0.1:{metrics}")]);
    // Prometheus scrapes the daemon before the program starts.
    let (_prom, web) = prometheus(&d, metrics);
    let q = "sum(darshan_bytes_written_total{job_key=\"slurm-9090.0\",module=\"POSIX\"})";
    let mut w = writer(&d, "9090", "4");
    let mut seen = Vec::new();
    while w.try_wait().unwrap().is_none() {
        if let Some(v) = prom_value(web, q) {
            if seen.last() != Some(&v) {
                seen.push(v);
            }
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    assert!(w.wait().unwrap().success());
    let (bytes, _) = final_posix(&d);
    let last = prom_until(web, q, bytes as f64);
    assert!(seen.len() >= 2 && seen.windows(2).all(|p| p[0] < p[1]), "grew while it ran: {seen:?}");
    assert_eq!(last, Some(bytes as f64), "the scraped total ends at the final log's bytes");
    let text = http_get(metrics, "/metrics");
    assert!(
        text.contains("# TYPE darshan_bytes_written_total counter") && text.contains("node=\"testnode\""),
        "{text}"
    );
    assert!(sigterm(&mut daemon).success());
}

/// The daemon publishing to a NATS server (with a subscriber on
/// `darshan.live.>`) and scraped by Prometheus, all started here.
struct Watched {
    _nats: Server,
    _prom: Server,
    daemon: Server,
    stop: Arc<Mutex<bool>>,
    sub: std::thread::JoinHandle<Vec<(String, serde_json::Value)>>,
    /// Prometheus's web port.
    web: u16,
}

impl Watched {
    fn start(d: &Path) -> Watched {
        let (port, metrics) = (free_port(), free_port());
        let nats = start(Command::new("nats-server").args(["-a", "127.0.0.1", "-p", &port.to_string()]), port);
        let stop = Arc::new(Mutex::new(false));
        let sub = subscribe(port, stop.clone());
        let daemon = stream(
            d,
            &["--nats", &format!("nats://127.0.0.1:{port}"), "--prometheus", &format!("127.0.0.1:{metrics}")],
        );
        let (prom, web) = prometheus(d, metrics);
        Watched { _nats: nats, _prom: prom, daemon, stop, sub, web }
    }

    /// Stops the daemon (it must exit cleanly on SIGTERM) and returns
    /// every message the subscriber got.
    fn finish(mut self) -> Vec<(String, serde_json::Value)> {
        assert!(sigterm(&mut self.daemon).success(), "darshan-stream exits cleanly on SIGTERM");
        std::thread::sleep(Duration::from_millis(300));
        *self.stop.lock().unwrap() = true;
        self.sub.join().unwrap()
    }
}

/// A 4-rank MPI job (Open MPI) through the daemon to both servers: one
/// job id, four ranks, figures that grow while it runs, and job figures
/// that end at the job's log (its shared file reduced to one record).
#[test]
fn an_mpi_job_reaches_nats_and_prometheus_as_one_job_of_four_ranks() {
    use common::mpi::*;
    let d = scratch("stream-mpi");
    let both = Watched::start(&d);
    let web = both.web;
    let mut child = start_live_mpi(&d, "4");
    let q = "sum(darshan_bytes_written_total{module=\"POSIX\"})";
    let (mut grew, mut running) = (Vec::new(), 0.0f64);
    while child.try_wait().unwrap().is_none() {
        if let Some(v) = prom_value(web, q) {
            if grew.last() != Some(&v) {
                grew.push(v);
            }
        }
        running = running.max(prom_value(web, "sum(darshan_processes)").unwrap_or(0.0));
        std::thread::sleep(Duration::from_millis(300));
    }
    assert!(child.wait().unwrap().success());
    let log = darshan_log::LogFile::open(only_log(&d)).unwrap();
    let recs = log.records(POSIX).unwrap();
    let bytes: i64 = recs.iter().map(|r| r.counters[px::BYTES_WRITTEN]).sum();
    let last = prom_until(web, q, bytes as f64);
    let msgs = both.finish();

    assert!(grew.len() >= 2 && grew.windows(2).all(|p| p[0] < p[1]), "grew while it ran: {grew:?}");
    assert_eq!(running, 4.0, "four processes of the job ran on the node");
    assert_eq!(last, Some(bytes as f64), "the scraped total ends at the job's log");
    let key = format!("id{}", log.job.jobid);
    let of = |kind: &str| -> Vec<&serde_json::Value> {
        msgs.iter()
            .filter(|(s, m)| s == &format!("darshan.live.{kind}") && m["job_key"] == key.as_str())
            .map(|(_, m)| m)
            .collect()
    };
    let (procs, jobs) = (of("process"), of("job"));
    let mut ranks: Vec<i64> = procs.iter().filter_map(|m| m["rank"].as_i64()).collect();
    ranks.sort();
    ranks.dedup();
    // What came, when it is not the job's four ranks (this failed once
    // with none: which subjects and job keys the subscriber got says why).
    let seen: std::collections::BTreeSet<(String, String, i64)> = msgs
        .iter()
        .map(|(s, m)| (s.clone(), m["job_key"].as_str().unwrap_or("").to_string(), m["rank"].as_i64().unwrap_or(-9)))
        .collect();
    assert_eq!(ranks, [0, 1, 2, 3], "job key {key}; {} messages: {seen:?}", msgs.len());
    assert!(procs.iter().chain(&jobs).all(|m| m["job_id"].as_i64() == Some(log.job.jobid)), "one job id");
    assert_eq!(procs.iter().filter(|m| m["ended"] == true).count(), 4, "each rank's end said once");
    let posix = |m: &serde_json::Value| m["modules"]["POSIX"]["bytes_written"].as_i64().unwrap_or(0);
    assert!(jobs.iter().filter(|m| posix(m) > 0).count() >= 3, "{} job messages", jobs.len());
    assert_eq!(jobs.iter().map(|m| posix(m)).sum::<i64>(), bytes, "the job's messages add up to its log");
}

/// A process killed while it writes: its last state is published once,
/// as ended, and nothing after; Prometheus's figures end at what its
/// crash-safe file holds, with no process of the job left running.
#[test]
fn a_killed_process_is_published_once_then_ended() {
    let d = scratch("stream-killed");
    let both = Watched::start(&d);
    let web = both.web;
    let mut w = writer(&d, "7070", "60");
    std::thread::sleep(Duration::from_millis(1500));
    w.kill().unwrap();
    w.wait().unwrap();
    let files = darshan_live::find_files(&[d.join("mmap")], darshan_live::find::my_uid());
    assert_eq!(files.len(), 1, "the killed process's file stays");
    let held = darshan_live::snapshot::take(&files[0], None).unwrap();
    let bytes: i64 = held.modules[&POSIX].iter().map(|r| r.counters[px::BYTES_WRITTEN]).sum();
    let q = "sum(darshan_bytes_written_total{job_key=\"slurm-7070.0\",module=\"POSIX\"})";
    let last = prom_until(web, q, bytes as f64);
    // The end is known once /proc says the process is gone (docs/live.md).
    let running = prom_until(web, "sum(darshan_processes{job_key=\"slurm-7070.0\"})", 0.0);
    // Intervals go by after the end was said: nothing more is published.
    std::thread::sleep(Duration::from_millis(1500));
    let msgs = both.finish();

    assert!(bytes > 0);
    assert_eq!(last, Some(bytes as f64), "the scraped total ends at the crash-safe file's bytes");
    assert_eq!(running, Some(0.0), "no process of the job runs");
    let procs: Vec<&serde_json::Value> = msgs
        .iter()
        .filter(|(s, m)| s == "darshan.live.process" && m["job_key"] == "slurm-7070.0")
        .map(|(_, m)| m)
        .collect();
    let ended: Vec<usize> = procs.iter().enumerate().filter(|(_, m)| m["ended"] == true).map(|(i, _)| i).collect();
    assert_eq!(ended, [procs.len() - 1], "its end is said once, last: {} messages", procs.len());
    let posix = |m: &serde_json::Value| m["modules"]["POSIX"]["bytes_written"].as_i64().unwrap_or(0);
    assert_eq!(procs.iter().map(|m| posix(m)).sum::<i64>(), bytes, "its messages add up to its last state");
}

/// A figure of the daemon's own in its /metrics text.
fn own_metric(port: u16, name: &str) -> Option<f64> {
    http_get(port, "/metrics").lines().find(|l| l.starts_with(&format!("{name}{{")))?.rsplit(' ').next()?.parse().ok()
}

/// The NATS server goes away while a program writes: the daemon goes on
/// reading (its intervals keep counting, its metrics keep answering),
/// drops what the client cannot hold and counts it, and when a server is
/// back on the same address the client reconnects by itself and messages
/// flow again.
#[test]
fn while_nats_is_away_messages_are_dropped_and_counted_then_it_reconnects() {
    let d = scratch("stream-away");
    let (port, metrics) = (free_port(), free_port());
    let nats = start(Command::new("nats-server").args(["-a", "127.0.0.1", "-p", &port.to_string()]), port);
    let mut daemon = stream(
        &d,
        &[
            "--nats",
            &format!("nats://127.0.0.1:{port}"),
            "--max-pending",
            "2",
            "--prometheus",
            &format!("127.0.0.1:{metrics}"),
        ],
    );
    let mut w = writer(&d, "6060", "12");
    std::thread::sleep(Duration::from_millis(1000));
    let sent_before = own_metric(metrics, "darshan_stream_messages_total").unwrap_or(0.0);
    drop(nats);
    let t0 = Instant::now();
    let i0 = own_metric(metrics, "darshan_stream_intervals_total").expect("the daemon answers");
    std::thread::sleep(Duration::from_millis(3000));
    let i1 =
        own_metric(metrics, "darshan_stream_intervals_total").expect("the daemon answers while the server is away");
    let dropped = own_metric(metrics, "darshan_stream_dropped_total").unwrap_or(0.0);
    let elapsed = t0.elapsed().as_secs_f64();
    // The server is back: a subscriber on it gets the daemon's messages.
    let _nats = start(Command::new("nats-server").args(["-a", "127.0.0.1", "-p", &port.to_string()]), port);
    let stop = Arc::new(Mutex::new(false));
    let sub = subscribe(port, stop.clone());
    assert!(w.wait().unwrap().success());
    std::thread::sleep(Duration::from_millis(1000));
    assert!(sigterm(&mut daemon).success(), "darshan-stream exits cleanly on SIGTERM");
    std::thread::sleep(Duration::from_millis(300));
    *stop.lock().unwrap() = true;
    let msgs = sub.join().unwrap();

    assert!(sent_before > 0.0, "messages went out while the server was up");
    // 0.3 s intervals: about 10 in 3 s; a daemon waiting on the server would count few.
    assert!(
        i1 - i0 >= (elapsed / 0.3 * 0.6).floor(),
        "{} intervals in {elapsed:.1} s while the server was away",
        i1 - i0
    );
    assert!(dropped > 0.0, "what the client could not hold was dropped and counted");
    let after: Vec<_> = msgs.iter().filter(|(_, m)| m["job_key"] == "slurm-6060.0").collect();
    assert!(after.len() >= 3, "messages flow again after the reconnect: {}", after.len());
    assert!(after.iter().any(|(_, m)| m["ended"] == true), "its end reaches the new server");
}
