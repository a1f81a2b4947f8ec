//! `ar gen-client` end to end: a session explores the fixture shop (what `ar
//! demo` does) with `--gen-client python`, the generators each ecosystem
//! trusts write the clients, and real Python and Node call the running shop's
//! partner API through them: a path parameter, a query, a JSON body, with the
//! API key. The generators come from where `.ci/run` installs them
//! (`.ci/.venv`, `.ci/node`); the Python client installs into a fresh venv
//! from `.ci/wheels` with no network.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use ar_fixtures::{API_HOST, PUBLIC_API_KEY};

use crate::shop::{Shop, wait_bounded};
use crate::{installed, repo};

/// The fixture shop, still running, and the directory of the session that
/// mapped it (with its Python clients, from `--gen-client python`).
struct Mapped {
    shop: Shop,
    dir: tempfile::TempDir,
    printed: String,
}

/// One session for every test here: exploring the shop takes a minute or two.
fn mapped() -> &'static Mapped {
    static MAPPED: OnceLock<Mapped> = OnceLock::new();
    MAPPED.get_or_init(|| {
        let shop = Shop::start();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("session");
        let mut command = shop.ar(&["--explore", "--gen-client", "python", "--out"]);
        command.arg(&out).env("PATH", tools_path());
        let mut child = command.spawn().expect("ar starts");
        let status = wait_bounded(&mut child, Duration::from_secs(360));
        let output = child.wait_with_output().unwrap();
        let printed = text(&output);
        assert!(status.success(), "the session failed:\n{printed}");
        Mapped { shop, dir, printed }
    })
}

impl Mapped {
    fn session(&self) -> PathBuf {
        self.dir.path().join("session")
    }
}

/// PATH with the pinned generators first, as `.ci/run` installs them.
fn tools_path() -> std::ffi::OsString {
    let ci = [
        repo().join(".ci/.venv/bin"),
        repo().join(".ci/node/node_modules/.bin"),
    ];
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(ci.into_iter().chain(std::env::split_paths(&path))).unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn run(command: &mut Command, what: &str) -> String {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
    let printed = text(&output);
    assert!(output.status.success(), "{what} failed:\n{printed}");
    printed
}

/// `ar gen-client` on the session, for the partner API only.
fn gen_client(lang: &str, out: &Path) -> String {
    let mapped = mapped();
    let printed = run(
        Command::new(env!("CARGO_BIN_EXE_ar"))
            .arg("gen-client")
            .arg(mapped.session())
            .args(["--lang", lang, "--server", API_HOST, "--out"])
            .arg(out)
            .env("PATH", tools_path()),
        "ar gen-client",
    );
    assert!(!printed.contains("warning"), "{printed}");
    printed
}

/// What every client's README must say: the three calls, the credential's
/// environment variable, and never the key.
fn check_readme(client: &Path) {
    let readme = std::fs::read_to_string(client.join("README.md")).unwrap();
    // The server's URL holds `/v1` when every path seen on it did.
    for call in [
        "/products/{productId}/reviews` (listProductReviews)",
        "/recommendations` (listRecommendations)",
        "/addresses` (createAddress)",
    ] {
        assert!(
            readme.contains(call),
            "{call} is not in the README:\n{readme}"
        );
    }
    assert!(readme.contains("API_SHOP_TEST_X_API_KEY"), "{readme}");
    for entry in walk(client) {
        let bytes = std::fs::read(&entry).unwrap();
        let found = bytes
            .windows(PUBLIC_API_KEY.len())
            .any(|w| w == PUBLIC_API_KEY.as_bytes());
        assert!(!found, "the API key is written in {}", entry.display());
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn ca_file(dir: &Path) -> PathBuf {
    let ca = dir.join("shop-ca.pem");
    std::fs::write(&ca, mapped().shop.site.ca_pem()).unwrap();
    ca
}

#[test]
fn the_session_writes_a_python_client_per_server_without_warnings() {
    if !installed(
        &repo().join(".ci/.venv/bin/openapi-python-client"),
        "openapi-python-client",
    ) {
        return;
    }
    let mapped = mapped();
    assert!(
        mapped.printed.contains("client for https://api.shop.test:"),
        "{}",
        mapped.printed
    );
    assert!(!mapped.printed.contains("warning"), "{}", mapped.printed);
    let client = mapped.session().join("client-python-api.shop.test");
    check_readme(&client);
    let connect = std::fs::read_to_string(client.join("api_shop_test_client/connect.py")).unwrap();
    let port = mapped.shop.port();
    assert!(
        connect.contains(&format!(
            "DEFAULT_BASE_URL = \"https://api.shop.test:{port}"
        )),
        "{connect}"
    );
}

/// The partner API through the generated Python client, installed into a
/// fresh venv: typed models parse each answer.
const PYTHON_CALLS: &str = r#"
import os
import socket

# The fixture's names are made up: *.shop.test is the shop on loopback.
_resolve = socket.getaddrinfo
def _loopback(host, *args, **kwargs):
    if isinstance(host, str) and host.endswith("shop.test"):
        host = "127.0.0.1"
    return _resolve(host, *args, **kwargs)
socket.getaddrinfo = _loopback

from api_shop_test_client.api.addresses import create_address
from api_shop_test_client.api.products import list_product_reviews
from api_shop_test_client.api.recommendations import list_recommendations
from api_shop_test_client.connect import connect
from api_shop_test_client.models import (
    Address,
    AddressInput,
    ListProductReviewsResponse200,
    ListRecommendationsResponse200,
)

client = connect(x_api_key=os.environ["AR_TEST_API_KEY"], verify_ssl=os.environ["AR_TEST_CA"])

reviews = list_product_reviews.sync(client=client, product_id=102, page=1, per_page=2)
assert isinstance(reviews, ListProductReviewsResponse200), reviews
assert len(reviews.data) == 2, reviews
assert all(isinstance(r.rating, int) for r in reviews.data), reviews

recommended = list_recommendations.sync(client=client, product_id=101, limit=3)
assert isinstance(recommended, ListRecommendationsResponse200), recommended
assert recommended.product_id == 101 and len(recommended.items) == 3, recommended

body = AddressInput.from_dict({
    "label": "ar", "line1": "1 Test Street", "line2": "Flat 1", "city": "Testville",
    "postal_code": "12345", "country": "DE", "is_default": False,
})
address = create_address.sync(client=client, body=body)
assert isinstance(address, Address), address
assert address.city == "Testville" and address.id, address

# Without the key the shop answers 401, which the client reports as such.
anonymous = list_recommendations.sync_detailed(
    client=connect(x_api_key="wrong", verify_ssl=os.environ["AR_TEST_CA"]), product_id=101, limit=3
)
assert anonymous.status_code == 401, anonymous
print("python client: 3 calls ok")
"#;

#[test]
fn the_python_client_installs_offline_and_calls_the_shop() {
    let wheels = repo().join(".ci/wheels");
    if !installed(
        &repo().join(".ci/.venv/bin/openapi-python-client"),
        "openapi-python-client",
    ) || !installed(
        &wheels,
        "the Python client's wheels (.ci/client-wheels.txt)",
    ) {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let client = work.path().join("client");
    gen_client("python", &client);
    check_readme(&client);
    let venv = work.path().join("venv");
    run(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv",
    );
    run(
        Command::new(venv.join("bin/pip"))
            .args(["install", "-q", "--disable-pip-version-check", "--no-index"])
            .arg("--find-links")
            .arg(&wheels)
            .arg(&client),
        "pip install of the generated client (offline)",
    );
    let script = work.path().join("calls.py");
    std::fs::write(&script, PYTHON_CALLS).unwrap();
    let printed = run(
        Command::new(venv.join("bin/python"))
            .arg(&script)
            .current_dir(work.path())
            .env("AR_TEST_API_KEY", PUBLIC_API_KEY)
            .env("AR_TEST_CA", ca_file(work.path())),
        "the Python calls",
    );
    assert!(printed.contains("python client: 3 calls ok"), "{printed}");
}

/// The same calls in TypeScript: `tsc --noEmit` must accept them against the
/// generated types, then Node runs them.
const TYPESCRIPT_CALLS: &str = r#"
import { connect } from "./client/client.js";

const key = process.env.AR_TEST_API_KEY;
if (key === undefined) throw new Error("AR_TEST_API_KEY is not set");
const client = connect({ xApiKey: key });

const reviews = await client.GET("{V1}/products/{productId}/reviews", {
  params: { path: { productId: 102 }, query: { page: 1, per_page: 2 } },
});
if (reviews.data === undefined) throw new Error(`reviews: ${reviews.response.status}`);
const ratings: number[] = (reviews.data.data ?? []).map((r) => r.rating ?? -1);
if (ratings.length !== 2 || ratings.includes(-1)) throw new Error(`ratings ${ratings}`);

const recommended = await client.GET("{V1}/recommendations", {
  params: { query: { product_id: 101, limit: 3 } },
});
if (recommended.data === undefined) throw new Error(`recommendations: ${recommended.response.status}`);
if (recommended.data.product_id !== 101 || recommended.data.items?.length !== 3) {
  throw new Error(`recommendations ${JSON.stringify(recommended.data)}`);
}

const address = await client.POST("{V1}/addresses", {
  body: {
    label: "ar", line1: "1 Test Street", line2: "Flat 1", city: "Testville",
    postal_code: "12345", country: "DE", is_default: false,
  },
});
if (address.data === undefined) throw new Error(`address: ${address.response.status}`);
const city: string | undefined = address.data.city;
if (city !== "Testville") throw new Error(`address ${JSON.stringify(address.data)}`);

const anonymous = await connect({ xApiKey: "wrong" }).GET("{V1}/recommendations", {
  params: { query: { product_id: 101, limit: 3 } },
});
if (anonymous.response.status !== 401) throw new Error(`anonymous: ${anonymous.response.status}`);
console.log("typescript client: 3 calls ok");
"#;

/// Node's fetch resolves through `dns.lookup`: the made-up names go to loopback.
const NODE_LOOPBACK: &str = r#"
const dns = require("node:dns");
const lookup = dns.lookup;
dns.lookup = function (host, options, callback) {
  if (typeof host === "string" && host.endsWith("shop.test")) host = "127.0.0.1";
  return lookup.call(this, host, options, callback);
};
"#;

const TSCONFIG: &str = r#"{
  "compilerOptions": {
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "outDir": "out",
    "skipLibCheck": false
  },
  "files": ["main.ts"]
}
"#;

#[test]
fn the_typescript_client_type_checks_and_calls_the_shop() {
    let node_modules = repo().join(".ci/node/node_modules");
    if !installed(
        &node_modules.join("openapi-typescript"),
        "openapi-typescript (.ci/node)",
    ) {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let client = work.path().join("client");
    gen_client("typescript", &client);
    check_readme(&client);
    std::os::unix::fs::symlink(&node_modules, work.path().join("node_modules")).unwrap();
    std::fs::write(work.path().join("package.json"), r#"{"type": "module"}"#).unwrap();
    std::fs::write(work.path().join("tsconfig.json"), TSCONFIG).unwrap();
    // The paths are relative to the server: `/v1` is in one or the other.
    let spec = std::fs::read_to_string(client.join("openapi.yaml")).unwrap();
    let v1 = if spec.contains("\n  /v1/recommendations:") {
        "/v1"
    } else {
        ""
    };
    let calls = TYPESCRIPT_CALLS.replace("{V1}", v1);
    std::fs::write(work.path().join("main.ts"), calls).unwrap();
    std::fs::write(work.path().join("loopback.cjs"), NODE_LOOPBACK).unwrap();
    let tsc = node_modules.join(".bin/tsc");
    run(
        Command::new(&tsc)
            .args(["--noEmit", "-p", "tsconfig.json"])
            .current_dir(work.path()),
        "tsc --noEmit",
    );
    run(
        Command::new(&tsc)
            .args(["-p", "tsconfig.json"])
            .current_dir(work.path()),
        "tsc",
    );
    let printed = run(
        Command::new("node")
            .args(["--require", "./loopback.cjs", "out/main.js"])
            .current_dir(work.path())
            .env("AR_TEST_API_KEY", PUBLIC_API_KEY)
            .env("NODE_EXTRA_CA_CERTS", ca_file(work.path())),
        "the TypeScript calls (node)",
    );
    assert!(
        printed.contains("typescript client: 3 calls ok"),
        "{printed}"
    );
}

/// The Rust crate builds on its own. Ignored by default: `cargo check` of a
/// fresh crate fetches and compiles reqwest and its TLS stack (minutes on two
/// cores). `cargo test -p ar-cli --test it gen_client -- --ignored` runs it.
#[test]
#[ignore = "cargo check of the generated crate downloads and compiles reqwest: run with --ignored"]
fn the_rust_client_is_a_crate_that_checks() {
    let work = tempfile::tempdir().unwrap();
    let client = work.path().join("client");
    gen_client("rust", &client);
    check_readme(&client);
    run(
        Command::new(env!("CARGO"))
            .arg("check")
            .arg("--manifest-path")
            .arg(client.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", work.path().join("target")),
        "cargo check of the generated crate",
    );
}
