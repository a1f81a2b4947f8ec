#!/usr/bin/env python3
"""A real MCP client for `ar mcp`: the official MCP Python SDK (PyPI `mcp`,
pinned in .ci/requirements.txt) starts `ar mcp` over stdio and uses it the way
an agent would, against the fixture shop that the Rust test
(crates/ar-cli/tests/it/mcp.rs) serves on loopback.

It lists the tools, opens the shop headless, snapshots, clicks a link by its
ref, searches the flows, reads the spec resource after the update
notification, asks for a human (answered through elicitation), and checks
that a bad ref comes back as the structured error the agent's model gets.

Usage: mcp_client.py CONFIG_JSON, where the config names the `ar` binary,
the shop's URL, its --resolve entries, CA file, a CA dir and an output dir;
or mcp_client.py http URL CONFIG_JSON against a running `ar mcp --http`
(a client without elicitation: ask_human's human_done path).
Prints one JSON report on stdout (sizes of the answers included); any
failed check raises, so the exit status is non-zero.
"""

import asyncio
import json
import re
import sys

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def text_of(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


def check(condition, what, detail=""):
    if not condition:
        raise AssertionError(f"{what}\n--- detail ---\n{detail}")


async def run(config):
    updated = []
    list_changes = []
    elicited = []

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(message.params.uri)
        elif isinstance(message, types.ResourceListChangedNotification):
            list_changes.append(message.method)

    async def on_elicit(context, params):
        # The person at this client did what was asked and confirms.
        elicited.append(params.message)
        return types.ElicitResult(action="accept", content={"done": True})

    server = StdioServerParameters(
        command=config["ar"],
        args=["mcp", "--ca-dir", config["ca_dir"]],
        env={"PATH": config["path"], "RUST_LOG": "warn,ar=info", "NO_COLOR": "1"},
    )
    report = {"sizes": {}}
    errlog = open(config["stderr"], "w")
    async with stdio_client(server, errlog=errlog) as (read, write):
        async with ClientSession(
            read,
            write,
            message_handler=on_message,
            elicitation_callback=on_elicit,
        ) as session:
            init = await session.initialize()
            report["protocol"] = init.protocol_version
            report["server"] = init.server_info.name

            tools = (await session.list_tools()).tools
            names = [t.name for t in tools]
            report["tools"] = names
            for needed in ["site_open", "browser_snapshot", "browser_click", "flows_search", "spec", "explore", "ask_human"]:
                check(needed in names, f"tool {needed} is listed", names)

            async def call(name, args):
                result = await session.call_tool(name, args)
                return result, text_of(result)

            opened, said = await call(
                "site_open",
                {
                    "url": config["url"],
                    "headless": True,
                    "offline": True,
                    "resolve": config["resolve"],
                    "upstream_ca": config["upstream_ca"],
                    "out": config["out"],
                },
            )
            check(not opened.is_error, "site_open succeeds", said)
            site = re.search(r'site "([^"]+)" is open', said).group(1)
            report["site"] = site

            check(list_changes, "opening a site changes the resource list, and the client is told", list_changes)
            resources = (await session.list_resources()).resources
            uris = [str(r.uri) for r in resources]
            spec_uri = f"ar://{site}/openapi.yaml"
            check(spec_uri in uris, "the spec is a resource", uris)
            await session.subscribe_resource(spec_uri)

            snap, snapshot = await call("browser_snapshot", {"site": site})
            check(not snap.is_error, "browser_snapshot succeeds", snapshot)
            report["sizes"]["browser_snapshot"] = len(snapshot.encode())
            link = re.search(r'link "Products".*?\[ref=(e\d+)\]', snapshot)
            check(link, "the home page has a Products link with a ref", snapshot)

            clicked, listing = await call("browser_click", {"site": site, "ref": link.group(1)})
            check(not clicked.is_error, "clicking the link succeeds", listing)
            check("url: " in listing and "/products" in listing, "a new page is shown whole", listing)
            report["sizes"]["browser_click_new_page"] = len(listing.encode())
            product = re.search(r'link "[^"]+" \[ref=(e\d+)\] \[url=/products/\d+\]', listing)
            check(product, "the product list links to products", listing)
            clicked, after = await call("browser_click", {"site": site, "ref": product.group(1)})
            check(not clicked.is_error, "clicking a product succeeds", after)
            check(re.search(r"\+ GET \S+/api/products/(\d+|\{\w+\})", after), "the click names the endpoint it made fire", after)
            report["sizes"]["browser_click"] = len(after.encode())

            found, flows = await call("flows_search", {"site": site, "query": "products"})
            check(not found.is_error and "/api/products" in flows, "flows_search finds the products endpoint", flows)
            report["sizes"]["flows_search"] = len(flows.encode())
            key = next(line.split("  [")[0] for line in flows.splitlines() if line.startswith("GET ") and line.split("  [")[0].endswith("/api/products"))
            got, sample = await call("flows_get", {"site": site, "key": key})
            check(not got.is_error and "-> 200" in sample, "flows_get shows a sample", sample)
            report["sizes"]["flows_get"] = len(sample.encode())

            stats, stats_text = await call("flows_stats", {"site": site})
            check(not stats.is_error and "flows" in stats_text, "flows_stats answers", stats_text)
            report["sizes"]["flows_stats"] = len(stats_text.encode())
            status, status_text = await call("doc_status", {"site": site})
            check(not status.is_error and "/api/products" in status_text, "doc_status summarises the spec", status_text)
            report["sizes"]["doc_status"] = len(status_text.encode())

            # The spec is rewritten within a second of new flows: the client hears of it.
            with anyio.fail_after(20):
                while spec_uri not in updated:
                    await anyio.sleep(0.1)
            spec = await session.read_resource(spec_uri)
            spec_text = spec.contents[0].text
            check(re.search(r"/api/products/(\d+|\{\w+\}):", spec_text), "the spec resource holds the endpoint the click hit", spec_text[:3000])
            report["sizes"]["spec_resource"] = len(spec_text.encode())
            _, one_path = await call("spec", {"site": site, "path": "/api/products", "format": "json"})
            check('"/api/products"' in one_path, "spec gives one path", one_path)
            report["sizes"]["spec_one_path"] = len(one_path.encode())
            _, evidence = await call("endpoints", {"site": site, "query": "products"})
            listed = json.loads(evidence)
            check(listed["count"] >= 1 and listed["endpoints"][0]["paths_seen"], "endpoints carry their evidence", evidence)
            report["sizes"]["endpoints"] = len(evidence.encode())

            # A ref nobody handed out is the agent's structured error, not a crash.
            bad, bad_text = await call("browser_click", {"site": site, "ref": "e9999"})
            check(bad.is_error, "a bad ref is an error result", bad_text)
            error = json.loads(bad_text)
            check(error["error"] in ("not_found", "stale_ref"), "the error has the browser's code", bad_text)
            check(bad.structured_content and bad.structured_content["error"] == error["error"], "the error is structured too", bad)
            report["bad_ref"] = error
            unknown, unknown_text = await call("browser_snapshot", {"site": "nope.test"})
            check(unknown.is_error and json.loads(unknown_text)["error"] == "unknown_site", "an unknown site is named", unknown_text)

            # The hand-off: this client can show forms, so ask_human waits for the answer.
            asked, answer = await call("ask_human", {"site": site, "reason": "log in as ada"})
            check(not asked.is_error and "gave it back" in answer, "ask_human returns once the user confirms", answer)
            check(elicited and "log in as ada" in elicited[0], "the user was shown the reason", elicited)

            # The built-in explorer, for a short budget; it reports what it did.
            explored, explored_text = await call("explore", {"site": site, "pages": 2, "seconds": 60})
            check(not explored.is_error and "explorer" in explored_text and "pages" in explored_text, "explore runs the explorer and reports", explored_text)
            report["explored"] = explored_text
            after_explore, _ = await call("browser_snapshot", {"site": site})
            check(not after_explore.is_error, "the browser is the client's again after explore", _)

            saved, saved_text = await call("site_save", {"site": site})
            check(not saved.is_error and "capture.har" in saved_text, "site_save writes the files", saved_text)
            closed, closed_text = await call("site_close", {"site": site})
            check(not closed.is_error, "site_close succeeds", closed_text)
            report["closed"] = closed_text
            report["updates"] = len(updated)
    errlog.close()
    return report


async def over_http(url, config):
    """The streamable HTTP transport, from a client that cannot show forms:
    the handshake, the tool list, the structured error of a browser tool with
    no site open, and ask_human's other path (instructions, the browser tools
    refusing, human_done)."""
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            listed = text_of(await session.call_tool("site_list", {}))
            check("no site is open" in listed, "site_list says there is none", listed)
            none = await session.call_tool("browser_snapshot", {})
            error = json.loads(text_of(none))
            check(none.is_error and error["error"] == "no_site", "a browser tool without a site says to open one", error)

            opened = await session.call_tool(
                "site_open",
                {
                    "url": config["url"],
                    "headless": True,
                    "offline": True,
                    "resolve": config["resolve"],
                    "upstream_ca": config["upstream_ca"],
                    "out": config["out"],
                },
            )
            check(not opened.is_error, "site_open succeeds over HTTP", text_of(opened))
            asked = await session.call_tool("ask_human", {"reason": "solve the captcha"})
            told = text_of(asked)
            check(not asked.is_error and "human_done" in told and "solve the captcha" in told, "without forms, ask_human says to call human_done", told)
            refused = await session.call_tool("browser_snapshot", {})
            refusal = json.loads(text_of(refused))
            check(refused.is_error and refusal["error"] == "human_has_browser", "the browser tools wait for the user", refusal)
            done = await session.call_tool("human_done", {})
            check(not done.is_error and "gave it back" in text_of(done), "human_done hands the browser back", text_of(done))
            again = await session.call_tool("browser_snapshot", {})
            check(not again.is_error, "the browser tools work again", text_of(again))
            closed = await session.call_tool("site_close", {})
            check(not closed.is_error, "site_close succeeds", text_of(closed))
            return {"protocol": init.protocol_version, "tools": names, "no_site": error, "refusal": refusal}


def main():
    if sys.argv[1] == "http":
        report = asyncio.run(over_http(sys.argv[2], json.loads(sys.argv[3])))
    else:
        report = asyncio.run(run(json.loads(sys.argv[1])))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
