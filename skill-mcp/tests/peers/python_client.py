"""The official MCP Python SDK as a client of a toolwright MCP server.

usage: python_client.py MODE TARGET...
  MODE    auto (2026-07-28 via server/discover, the SDK default) or legacy (initialize)
  TARGET  an http(s) URL of the /mcp endpoint, or a command line that serves on stdio

Environment: TOOLWRIGHT_TOKEN is sent as a bearer token over HTTP. TOOLWRIGHT_PEER_CHECK picks
the checks: `fixture` (the test skills of tests/support/skills.rs, the default) or
`contract` (the contract-review library with a FIDIC contract loaded).

Prints one JSON line with what it saw; exits non-zero on the first failed check.
"""

import asyncio
import json
import os
import sys

import httpx2
from mcp import Client, MCPError, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client

EXPECTED_VERSION = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def check(condition, what):
    if not condition:
        raise AssertionError(what)


async def all_tools(client):
    names, cursor, pages = [], None, 0
    while True:
        page = await client.list_tools(cursor=cursor)
        pages += 1
        names.extend(t.name for t in page.tools)
        for tool in page.tools:
            check(tool.output_schema is not None, f"{tool.name} has an outputSchema")
            check(tool.annotations is not None, f"{tool.name} has annotations")
        cursor = page.next_cursor
        if not cursor:
            return names, pages


async def unknown_tool(client):
    try:
        await client.call_tool("no_such_tool", {})
    except MCPError as err:
        check(err.code == -32602, f"unknown tool is -32602, got {err.code}")
        return err.code
    raise AssertionError("calling an unknown tool raised no error")


async def fixture_checks(client, report):
    names, pages = await all_tools(client)
    check("math_add" in names and "echo_upper" in names, f"tools listed: {names}")
    check(names == sorted(names), f"sorted order: {names}")
    report["tools"], report["pages"] = len(names), pages

    ok = await client.call_tool("math_add", {"a": 2, "b": 3})
    check(not ok.is_error, f"math_add succeeded: {ok}")
    check(ok.structured_content == {"result": 5}, f"structured: {ok.structured_content}")
    check(json.loads(ok.content[0].text) == {"result": 5}, "text copy")

    fixed = await client.call_tool("echo_upper", {"text": "ab", "times": "2"})
    check(not fixed.is_error, f"loose arguments fixed: {fixed}")
    check(fixed.structured_content == {"text": "ABAB", "times": 2}, f"{fixed.structured_content}")
    warnings = (fixed.meta or {}).get("toolwright/warnings") or []
    check(warnings and warnings[0]["path"] == "$.times", f"warnings in _meta: {fixed.meta}")

    bad = await client.call_tool("echo_upper", {"text": "ab", "times": "many"})
    check(bad.is_error, f"bad arguments are an error result: {bad}")
    check("$.times" in bad.content[0].text, f"problem names its path: {bad.content[0].text}")
    report["bad_arguments"] = bad.content[0].text.splitlines()[0][:60]

    report["unknown_tool"] = await unknown_tool(client)

    # No elicitation callback: the client cannot ask its user, so the write waits.
    waiting = await client.call_tool("delete_note", {"title": "draft"})
    check(waiting.is_error, f"a write without consent does not run: {waiting}")
    check("confirmation_required" in waiting.content[0].text, waiting.content[0].text)
    check("toolwright/pendingConfirmation" in (waiting.meta or {}), f"pending in _meta: {waiting.meta}")


async def consent_checks(server, mode, report):
    """A client whose user answers: the write runs on consent only."""
    asked = []

    def answering(accept):
        async def callback(context, params):
            asked.append(params.message)
            if accept:
                return types.ElicitResult(action="accept", content={"confirm": True})
            return types.ElicitResult(action="decline")

        return callback

    for accept in (True, False):
        async with Client(server(), mode=mode, elicitation_callback=answering(accept)) as client:
            done = await client.call_tool("delete_note", {"title": f"note-{accept}"})
            if accept:
                check(not done.is_error, f"consented write ran: {done}")
                check(done.structured_content == {"result": "deleted note-True"}, f"{done}")
            else:
                check(done.is_error, f"declined write did not run: {done}")
                check("confirmation_rejected" in done.content[0].text, done.content[0].text)
    check(len(asked) == 2 and "delete_note" in asked[0], f"the user was asked: {asked}")
    report["consent"] = "asked, ran on accept, refused on decline"


async def contract_checks(client, report):
    names, pages = await all_tools(client)
    check("fidic_calculate_time_bar" in names, f"contract tools listed: {names}")
    report["tools"], report["pages"] = len(names), pages
    ok = await client.call_tool("fidic_calculate_time_bar", {"clause_id": "20.1"})
    check(not ok.is_error, f"time bar computed: {ok.content[0].text[:300]}")
    check(isinstance(ok.structured_content, dict), "structured content")
    report["time_bar_keys"] = sorted(ok.structured_content)[:6]
    bad = await client.call_tool("fidic_calculate_time_bar", {"clause_id": ["20.1"]})
    check(bad.is_error, f"bad arguments are an error result: {bad}")
    report["bad_arguments"] = bad.content[0].text.splitlines()[0][:60]
    report["unknown_tool"] = await unknown_tool(client)


async def main(mode, target):
    if target[0].startswith("http"):
        headers = {}
        if os.environ.get("TOOLWRIGHT_TOKEN"):
            headers["Authorization"] = f"Bearer {os.environ['TOOLWRIGHT_TOKEN']}"

        def server():
            return streamable_http_client(target[0], http_client=httpx2.AsyncClient(headers=headers))

        transport = "http"
    else:

        def server():
            return StdioServerParameters(command=target[0], args=target[1:])

        transport = "stdio"
    report = {"transport": transport, "mode": mode}
    async with Client(server(), mode=mode) as client:
        report["protocol_version"] = client.protocol_version
        check(
            client.protocol_version == EXPECTED_VERSION[mode],
            f"{mode} mode negotiated {client.protocol_version}",
        )
        if os.environ.get("TOOLWRIGHT_PEER_CHECK", "fixture") == "contract":
            await contract_checks(client, report)
        else:
            await fixture_checks(client, report)
    if os.environ.get("TOOLWRIGHT_PEER_CHECK", "fixture") != "contract":
        await consent_checks(server, mode, report)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in EXPECTED_VERSION:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
