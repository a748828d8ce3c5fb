"""The official MCP Python SDK as a client of `clausewright serve --tool-search`.

usage: tool_search_client.py MODE TARGET...
  MODE    auto (2026-07-28 via server/discover, the SDK default) or legacy (initialize)
  TARGET  an http(s) URL of the /mcp endpoint, or a command line that serves on stdio

The server is expected to serve the contract-review library with a FIDIC contract loaded.
Environment: TOOLWRIGHT_TOKEN is sent as a bearer token over HTTP.

Lists the two tools, searches, calls a found tool through `call_tool` with valid and invalid
arguments, and compares the invalid call's error with a direct call's. Prints one JSON line
with what it saw; exits non-zero on the first failed check.
"""

import asyncio
import json
import sys

from mcp import Client

from peer import check, server_of

EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}
TOOL = "fidic_calculate_time_bar"


async def checks(client, report):
    listed = await client.list_tools()
    names = [t.name for t in listed.tools]
    check(names == ["search_tools", "call_tool"], f"two tools listed: {names}")
    check(not listed.next_cursor, "one page")
    search = listed.tools[0]
    check("FIRST" in (search.description or ""), f"when to search: {search.description}")
    report["listed"] = names

    found = await client.call_tool("search_tools", {"query": "time bar for a claim notice under clause 20.1"})
    check(not found.is_error, f"search succeeded: {found}")
    tools = found.structured_content["tools"]
    ranked = [t["name"] for t in tools]
    check(TOOL in ranked, f"{TOOL} found: {ranked}")
    time_bar = next(t for t in tools if t["name"] == TOOL)
    check("clause_id" in time_bar["inputSchema"].get("properties", {}), f"schema: {time_bar}")
    check(json.loads(found.content[0].text) == found.structured_content, "text copy")
    report["ranked"] = ranked

    ok = await client.call_tool("call_tool", {"name": TOOL, "arguments": {"clause_id": "20.1"}})
    check(not ok.is_error, f"proxied call succeeded: {ok.content[0].text[:300]}")
    check(ok.structured_content.get("clause_id") == "20.1", f"structured: {ok.structured_content}")
    direct_ok = await client.call_tool(TOOL, {"clause_id": "20.1"})
    check(ok.structured_content == direct_ok.structured_content, "proxied result equals a direct call's")

    bad_arguments = {"clause_id": ["20.1"]}
    direct = await client.call_tool(TOOL, bad_arguments)
    proxied = await client.call_tool("call_tool", {"name": TOOL, "arguments": bad_arguments})
    check(direct.is_error and proxied.is_error, f"invalid arguments refused: {direct} / {proxied}")
    direct_text, proxied_text = direct.content[0].text, proxied.content[0].text
    check("$.arguments.clause_id" in proxied_text, f"path under arguments: {proxied_text}")
    check(
        proxied_text == direct_text.replace("$.clause_id", "$.arguments.clause_id"),
        f"same error as a direct call:\n{proxied_text}\n---\n{direct_text}",
    )
    problems = proxied.meta["toolwright/error"]["problems"]
    check(problems[0]["path"] == "$.arguments.clause_id", f"_meta problems: {problems}")
    report["invalid"] = proxied_text.splitlines()[0][:80]

    unknown = await client.call_tool("call_tool", {"name": "no_such_tool", "arguments": {}})
    check(unknown.is_error and "search_tools" in unknown.content[0].text, f"unknown name: {unknown}")


async def main(mode, target):
    server, transport = server_of(target)
    report = {"transport": transport, "mode": mode}
    async with Client(server, mode=mode) as client:
        report["protocol_version"] = client.protocol_version
        check(
            client.protocol_version == EXPECTED_VERSION[mode],
            f"{mode} mode negotiated {client.protocol_version}",
        )
        await checks(client, report)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in EXPECTED_VERSION:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
