"""A client of the MCP skills extension (SEP-2640) on the official MCP Python SDK.

The SDK (mcp 2.3.0) has no skills client: this one sends `skills/list` and `skills/get`
through the SDK's session as requests of their own, with the request and result shapes of
the extension's specification, and reads files with the SDK's `resources/read`. What a host
must do with an entry, it does: every file read is checked against the entry's size and
sha256 digest, and the SKILL.md front matter (parsed as YAML) against the entry's.

usage: skills_client.py MODE TARGET...
  MODE    auto (2026-07-28 via server/discover, the SDK default) or legacy (initialize)
  TARGET  an http(s) URL of the /mcp endpoint, or a command line that serves on stdio

Environment: TOOLWRIGHT_TOKEN is sent as a bearer token over HTTP.

Prints one JSON line with what it saw; exits non-zero on the first failed check.
"""

import asyncio
import hashlib
import json
import re
import sys
from typing import Any, Literal

import yaml
from mcp import Client, MCPError, types
from mcp.client.extension import advertise
from pydantic import BaseModel, Field

from peer import check, server_of

SKILLS = "io.modelcontextprotocol/skills"
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class ListSkillsRequest(types.PaginatedRequest[Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"


class GetSkillParams(types.RequestParams):
    uri: str


class GetSkillRequest(types.Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


class SkillResource(BaseModel):
    uri: str
    digest: str
    size: int


class Skill(BaseModel):
    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillResource] | Literal["dynamic"]


class ListSkillsResult(types.Result):
    skills: list[Skill]
    next_cursor: str | None = Field(default=None, alias="nextCursor")
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    cache_scope: str | None = Field(default=None, alias="cacheScope")


class GetSkillResult(types.Result):
    skill: Skill
    ttl_ms: int | None = Field(default=None, alias="ttlMs")
    cache_scope: str | None = Field(default=None, alias="cacheScope")


def check_entry(skill):
    """The rules on an entry that hold without reading a file."""
    name = skill.frontmatter.get("name")
    check(isinstance(skill.frontmatter.get("description"), str), f"{skill.uri}: description")
    check(skill.uri.endswith(f"/{name}/SKILL.md"), f"{skill.uri} ends in its name {name}")
    check(skill.resources != "dynamic", f"{skill.uri}: digests published")
    uris = [r.uri for r in skill.resources]
    check(skill.uri in uris, f"{skill.uri} lists its SKILL.md")
    check(len(set(uris)) == len(uris), f"{skill.uri}: each file once")
    root = skill.uri[: -len("SKILL.md")]
    for r in skill.resources:
        check(DIGEST.match(r.digest), f"{r.uri}: digest form {r.digest}")
        check(r.uri.startswith(root), f"{r.uri} is inside {root}")
    check(len(skill.resources) <= 512, "within the resource limit")
    check(sum(r.size for r in skill.resources) <= 16 * 1024 * 1024, "within the size limit")


async def verified_read(client, resource):
    """resources/read, then the size and digest the entry gives."""
    read = await client.read_resource(resource.uri)
    contents = read.contents[0]
    check(contents.uri == resource.uri, f"read {resource.uri}, got {contents.uri}")
    data = contents.text.encode("utf-8")
    check(len(data) == resource.size, f"{resource.uri}: {len(data)} bytes, entry says {resource.size}")
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    check(digest == resource.digest, f"{resource.uri}: digest {digest}, entry says {resource.digest}")
    return contents.text


def front_matter(text):
    check(text.startswith("---\n"), "SKILL.md opens with front matter")
    block, _, _ = text[4:].partition("\n---\n")
    return yaml.safe_load(block)


async def run(client, mode, report):
    capabilities = client.server_capabilities
    extensions = (capabilities.model_dump(by_alias=True).get("extensions")) or {}
    check(SKILLS in extensions, f"the server declares {SKILLS}: {extensions}")
    check(capabilities.resources is not None, "and the resources capability")
    report["directory_read"] = bool(extensions[SKILLS].get("directoryRead"))

    session = client.session
    listed = await session.send_request(ListSkillsRequest(), ListSkillsResult)
    check(listed.next_cursor is None, "one page")
    if mode == "auto":
        check(listed.ttl_ms is not None and listed.cache_scope in ("public", "private"), "cache hints")
    by_name = {s.frontmatter["name"]: s for s in listed.skills}
    report["skills"] = sorted(by_name)
    for skill in listed.skills:
        check_entry(skill)

    fidic = by_name.get("fidic-review")
    check(fidic is not None, f"the FIDIC review skill is listed: {sorted(by_name)}")
    got = await session.send_request(GetSkillRequest(params=GetSkillParams(uri=fidic.uri)), GetSkillResult)
    check(got.skill == fidic, "skills/get returns the listed entry")

    files = {r.uri.rsplit("/", 1)[1]: r for r in fidic.resources}
    skill_md = await verified_read(client, files["SKILL.md"])
    check(front_matter(skill_md) == fidic.frontmatter, "front matter equals the entry's")
    playbook = json.loads(await verified_read(client, files["playbook.json"]))
    check(playbook.get("domain") == "fidic" and playbook.get("kinds"), "the FIDIC playbook")
    report["verified"] = ["SKILL.md", "playbook.json"]

    # A tool the skill names: the table of SKILL.md, checked against metadata.tools.
    named = fidic.frontmatter["metadata"]["tools"].split()
    in_table = re.findall(r"^\| `([a-z_]+)` \|", skill_md, flags=re.M)
    check(in_table == named, f"the table names the tools of metadata.tools: {in_table} vs {named}")
    listed_tools = {t.name for t in (await client.list_tools()).tools}
    check(set(named) <= listed_tools, f"every named tool is served: {set(named) - listed_tools}")
    check("fidic_calculate_time_bar" in named, f"the time-bar tool is named: {named}")
    called = await client.call_tool("fidic_calculate_time_bar", {"clause_id": "20.1"})
    check(not called.is_error, f"the named tool runs: {called}")
    report["called"] = "fidic_calculate_time_bar"

    try:
        await session.send_request(
            GetSkillRequest(params=GetSkillParams(uri="skill://no-such-review/SKILL.md")), GetSkillResult
        )
    except MCPError as err:
        check(err.code == -32602, f"unknown skill is -32602, got {err.code}")
        check("skill://no-such-review/SKILL.md" in str(err), f"the error names the uri: {err}")
        report["unknown_skill"] = err.code
    else:
        raise AssertionError("an unknown skill raised no error")


async def main(mode, target):
    server, transport = server_of(target)
    report = {"transport": transport, "mode": mode}
    async with Client(server, mode=mode, extensions=[advertise(SKILLS)]) as client:
        report["protocol_version"] = client.protocol_version
        await run(client, mode, report)
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("auto", "legacy"):
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
