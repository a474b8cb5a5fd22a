//! darshan-stream: the per-node daemon of the live view (docs/live.md).
//! Every interval it reads the crash-safe files of the node's running
//! processes (darshan_live) and publishes the deltas: one JSON message
//! per process and per job to a NATS server, and per-job counters on an
//! HTTP port for Prometheus. It never makes a program wait: it only reads
//! files; a slow or absent server costs dropped messages (counted), and
//! the NATS client reconnects by itself. SIGTERM or SIGINT: a last
//! interval is published, then it exits.
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use darshan_live::find::{find_files, my_uid};
use darshan_live::stream::{messages, Metrics};

#[derive(Parser)]
#[command(
    name = "darshan-stream",
    version,
    about = "Publish this node's live Darshan I/O figures to NATS and Prometheus"
)]
struct Opts {
    #[command(flatten)]
    src: darshan_live::find::Sources,
    /// NATS server to publish to (e.g. nats://127.0.0.1:4222).
    #[arg(long, value_name = "URL")]
    nats: Option<String>,
    /// Subject prefix: messages go to <prefix>.process and <prefix>.job.
    #[arg(long, default_value = "darshan.live")]
    subject: String,
    /// Serve Prometheus metrics at http://ADDR/metrics (e.g. 127.0.0.1:9466).
    #[arg(long, value_name = "ADDR")]
    prometheus: Option<std::net::SocketAddr>,
    /// The node's name in messages and metrics (default: the host name).
    #[arg(long)]
    node: Option<String>,
    /// Seconds a finished job's counters stay in the metrics.
    #[arg(long, default_value_t = 600.0)]
    keep: f64,
    /// Messages the NATS client may hold while the server is slow or away;
    /// beyond that they are dropped and counted.
    #[arg(long, default_value_t = 4096)]
    max_pending: usize,
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

async fn serve(addr: std::net::SocketAddr, metrics: Arc<Mutex<Metrics>>, node: String) -> std::io::Result<()> {
    use axum::routing::get;
    let app = axum::Router::new().route(
        "/metrics",
        get(move || {
            let text = metrics.lock().map(|m| m.render(&node)).unwrap_or_default();
            async move { ([(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text) }
        }),
    );
    let listener = tokio::net::TcpListener::bind(addr).await?;
    axum::serve(listener, app).await
}

async fn run(o: Opts) -> Result<(), String> {
    // Set before anything else, so that a stop in the daemon's first
    // moments (a service stopped as it starts) is a clean stop too, not a
    // death by the signal (darshan-ingest died so: CI48).
    let mut term =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).map_err(|e| e.to_string())?;
    let mut int =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).map_err(|e| e.to_string())?;
    let dirs = o.src.crash_safe_dirs();
    let node = o.node.clone().unwrap_or_else(host_name);
    let uid = my_uid();
    let metrics = Arc::new(Mutex::new(Metrics::new(o.keep)));
    if let Some(addr) = o.prometheus {
        start_metrics_server(addr, metrics.clone(), node.clone())?;
    }
    let nats = match &o.nats {
        Some(url) => Some(connect(url, o.max_pending).await?),
        None => None,
    };
    let mut tracker = o.src.tracker();
    let mut tick = tokio::time::interval(Duration::from_secs_f64(o.src.interval));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last = false;
    let mut said = std::collections::HashSet::new();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = term.recv() => last = true,
            _ = int.recv() => last = true,
        }
        let files = find_files(&dirs, uid);
        let iv = tracker.interval(&files);
        // A refused file is said once (a daemon's log is not flooded at
        // every interval); the count goes on in Prometheus.
        for why in &iv.refused {
            if said.len() < 10_000 && said.insert(why.clone()) {
                eprintln!("darshan-stream: {why}");
            }
        }
        let (sent, dropped) = match &nats {
            Some(c) => publish(c, &o.subject, messages(&iv, &node), last).await,
            None => (0, 0),
        };
        if let Ok(mut m) = metrics.lock() {
            m.files = files.len();
            m.published += sent;
            m.dropped += dropped;
            m.add(&iv);
        }
        if last {
            return Ok(());
        }
    }
}

/// The Prometheus endpoint, serving in the background. Bound here first,
/// so that a wrong address is said at once, before the first interval.
fn start_metrics_server(addr: std::net::SocketAddr, metrics: Arc<Mutex<Metrics>>, node: String) -> Result<(), String> {
    let listener = std::net::TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    drop(listener);
    tokio::spawn(async move {
        if let Err(e) = serve(addr, metrics, node).await {
            eprintln!("darshan-stream: metrics server on {addr}: {e}");
        }
    });
    Ok(())
}

/// A NATS client that keeps trying a server that is not up yet, with room
/// for `max_pending` messages.
async fn connect(url: &str, max_pending: usize) -> Result<async_nats::Client, String> {
    async_nats::ConnectOptions::new()
        .retry_on_initial_connect()
        .client_capacity(max_pending.max(1))
        .connect(url)
        .await
        .map_err(|e| format!("NATS server {url}: {e}"))
}

/// An interval's messages, each under `subject.kind`: (sent, dropped).
/// Never waits on the server: a publish that cannot be queued at once
/// (the client's buffer full) is dropped. The last interval is flushed.
async fn publish(c: &async_nats::Client, subject: &str, msgs: Vec<(&str, String)>, last: bool) -> (u64, u64) {
    let (mut sent, mut dropped) = (0u64, 0u64);
    for (kind, body) in msgs {
        let subject = format!("{subject}.{kind}");
        match tokio::time::timeout(Duration::from_millis(20), c.publish(subject, body.into())).await {
            Ok(Ok(())) => sent += 1,
            _ => dropped += 1,
        }
    }
    if last {
        let _ = tokio::time::timeout(Duration::from_secs(2), c.flush()).await;
    }
    (sent, dropped)
}

fn main() -> ExitCode {
    darshan_util::cli::one_line_panics("darshan-stream");
    let o = Opts::parse();
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("darshan-stream: {e}");
            return ExitCode::from(1);
        }
    };
    match rt.block_on(run(o)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("darshan-stream: {e}");
            ExitCode::from(1)
        }
    }
}
