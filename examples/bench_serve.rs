//! Bench tool: serves a directory of static files on 127.0.0.1 (ephemeral port)
//! with gzip, for `scripts/bench`.
//!
//! ```text
//! cargo run --release --example bench_serve -- DIR
//! ```
//!
//! Prints the base URL (`http://127.0.0.1:PORT/`) as the first line on stdout, then
//! serves until killed. tower-http's `ServeDir` answers `/` with `index.html`, and
//! `CompressionLayer` gzips bodies for clients that accept it, as a real static host
//! would; the scanner and the plain fetch in `scripts/bench` both pay the same
//! server cost, on the same machine.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;

#[tokio::main]
async fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: bench_serve DIR");
        return ExitCode::from(2);
    };
    if !dir.is_dir() {
        eprintln!("bench_serve: {} is not a directory", dir.display());
        return ExitCode::from(2);
    }
    let app = axum::Router::new()
        .fallback_service(ServeDir::new(&dir))
        // gzip only, said explicitly: reqwest's `brotli`/`zstd` features turn on
        // tower-http's decompression of those, which makes the layer agree to
        // `br`/`zstd` when a client offers them (browsers, reqwest, the link
        // checker all do) and then answer uncompressed, since only gzip is
        // compiled in. A gzip-only static host answers such clients with gzip.
        .layer(
            CompressionLayer::new()
                .gzip(true)
                .no_br()
                .no_zstd()
                .no_deflate(),
        );
    let listener = match tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await
    {
        Ok(l) => l,
        Err(e) => {
            eprintln!("bench_serve: cannot bind 127.0.0.1:0: {e}");
            return ExitCode::from(3);
        }
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench_serve: no local address: {e}");
            return ExitCode::from(3);
        }
    };
    let mut out = std::io::stdout();
    if writeln!(out, "http://{addr}/")
        .and_then(|()| out.flush())
        .is_err()
    {
        return ExitCode::from(3);
    }
    match axum::serve(listener, app).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_serve: {e}");
            ExitCode::from(3)
        }
    }
}
