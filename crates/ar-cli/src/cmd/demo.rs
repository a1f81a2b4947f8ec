//! `ar demo`: the README's one command. Serves the fixture shop
//! (`shop.test`, `api.shop.test`, `cdn.shop.test`, `metrics.test`) over
//! HTTPS on loopback inside this process, then runs a headless `ar`
//! session on it with the built-in explorer (no LLM), the `--resolve`
//! entries and the fixture's CA that made-up hosts need, and says where the
//! spec went.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use ar_fixtures::{FixtureConfig, FixtureSite};

use crate::cmd::session::SessionArgs;

/// Explore a built-in demo shop end to end (no network, no API key).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Output directory [default: ./ar-out/shop.test-<timestamp>/].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Show the browser window (needs a display).
    #[arg(long)]
    headed: bool,
    /// Use this WebDriver server instead of starting chromedriver.
    #[arg(long, value_name = "URL")]
    webdriver: Option<String>,
    /// Where ar's CA lives [default: the user's data dir].
    #[arg(long, value_name = "DIR")]
    ca_dir: Option<PathBuf>,
    /// When the exploration ends, write a typed client of the shop's API (`ar gen-client`).
    #[arg(long, value_enum, value_name = "LANG")]
    gen_client: Option<crate::cmd::gen_client::Lang>,
}

/// Starts the fixture site, runs the session on it, stops the site.
pub(crate) fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let code = runtime.block_on(async {
        let site = FixtureSite::start(FixtureConfig::new())
            .await
            .context("cannot start the demo site")?;
        let port = site.addr().port();
        // Chromium trusts ar's CA; the proxy must trust the shop's own CA
        // upstream: an extra root, in a file that lives as long as the run.
        let ca_file = tempfile::Builder::new()
            .prefix("ar-demo-ca-")
            .suffix(".pem")
            .tempfile()?;
        std::fs::write(ca_file.path(), site.ca_pem())?;
        let target = format!("https://{}:{port}/", ar_fixtures::SHOP_HOST);
        writeln!(
            out,
            "ar demo: the fixture shop is at {target} (served by this process on {})",
            site.addr()
        )?;
        let session = SessionArgs {
            url: Some(target.clone()),
            out: args.out,
            headless: !args.headed,
            webdriver: args.webdriver,
            ca_dir: args.ca_dir,
            resolve: site
                .host_mappings()
                .iter()
                .map(|(host, addr)| format!("{host}:{port}:{}", addr.ip()))
                .collect(),
            upstream_ca: Some(ca_file.path().to_path_buf()),
            // The shop is all there is: Chromium's background requests stay on the machine.
            offline: true,
            explore: true,
            batch: true,
            gen_client: args.gen_client,
            ..SessionArgs::default()
        };
        out.flush()?;
        let code = crate::cmd::session::run_in_runtime(session).await;
        site.shutdown().await;
        code
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    code
}
