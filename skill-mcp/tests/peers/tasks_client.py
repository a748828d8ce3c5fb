"""The official MCP Python SDK as a client of a toolwright server's task tool (the tasks
extension, `io.modelcontextprotocol/tasks`, SEP-2663).

mcp 2.3.0 has no client for the tasks extension; it has the generic extension hooks
(`ClientExtension`, a `ResultClaim` on a `resultType`). This peer is the extension's
requester side on those hooks, as an application would write it: it declares the extension,
claims the `resultType: "task"` answers of `tools/call` and resolves them by polling
`tasks/get` at the `pollIntervalMs` the server asks for.

usage: tasks_client.py TARGET...
  TARGET  an http(s) URL of the /mcp endpoint, or a command line that serves on stdio
          (`peer_server --stdio --tasks`)

Environment: TOOLWRIGHT_TOKEN is sent as a bearer token over HTTP.

Prints one JSON line with what it saw; exits non-zero on the first failed check.
"""

import asyncio
import json
import os
import sys
from typing import Any, Literal

import httpx2
from mcp import Client, MCPError, StdioServerParameters, types
from mcp.client import ClientExtension
from mcp.client.extension import ResultClaim
from mcp.client.streamable_http import streamable_http_client
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"
TERMINAL = {"completed", "failed", "cancelled"}


def check(condition, what):
    if not condition:
        raise AssertionError(what)


class CreateTaskResult(types.Result):
    """`tools/call` answered with a task (`resultType: "task"`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    status_message: str | None = None


class DetailedTask(types.Result):
    """The answer to `tasks/get`."""

    model_config = ConfigDict(extra="allow")
    result_type: str | None = None
    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class Ack(types.Result):
    """The empty answer to `tasks/cancel`."""

    model_config = ConfigDict(extra="allow")
    result_type: str | None = None


class TaskIdParams(types.RequestParams):
    task_id: str


class GetTaskRequest(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTaskRequest(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


async def get_task(session, task_id):
    return await session.send_request(GetTaskRequest(params=TaskIdParams(task_id=task_id)), DetailedTask)


class Tasks(ClientExtension):
    """The requester side of the tasks extension: a task is polled until it ends."""

    identifier = TASKS

    def __init__(self):
        self.polls = []

    def claims(self):
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.resolve)]

    async def resolve(self, created, ctx):
        check(created.status == "working", f"a new task is working: {created}")
        while True:
            task = await get_task(ctx.session, created.task_id)
            check(task.task_id == created.task_id, f"the same task: {task}")
            self.polls.append((task.status, task.status_message))
            if task.status == "completed":
                return types.CallToolResult.model_validate(task.result)
            if task.status in TERMINAL:
                text = (task.error or {}).get("message") or task.status_message or task.status
                return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
            await asyncio.sleep((task.poll_interval_ms or 1000) / 1000)


async def task_checks(server, report):
    tasks = Tasks()
    async with Client(server(), extensions=[tasks]) as client:
        report["protocol_version"] = client.protocol_version
        check(client.protocol_version == "2026-07-28", f"negotiated {client.protocol_version}")
        extensions = client.server_capabilities.extensions or {}
        check(TASKS in extensions, f"the server declares the tasks extension: {extensions}")
        listed = await client.list_tools()
        check(listed.tools[0].name == "count", f"the task tool is listed first: {listed.tools[0].name}")

        # Resolved through the claim: the caller sees a plain tool result.
        done = await client.call_tool("count", {"units": 12})
        check(not done.is_error, f"the task completed: {done}")
        check(done.structured_content == {"counted": 12}, f"structured: {done.structured_content}")
        statuses = [status for status, _ in tasks.polls]
        check(statuses[-1] == "completed", f"polled to the end: {tasks.polls}")
        check("working" in statuses, f"seen working first: {tasks.polls}")
        progress = [message for status, message in tasks.polls if status == "working"]
        check(all(m and "units done" in m for m in progress), f"progress in statusMessage: {progress}")
        report["polls"] = len(tasks.polls)
        report["progress"] = progress[-1]

        # The task itself, then cancelled while it counts to 50.
        created = await client.session.call_tool("count", {"units": 50}, allow_claimed=True)
        check(isinstance(created, CreateTaskResult), f"a task handle: {created}")
        ack = await client.session.send_request(
            CancelTaskRequest(params=TaskIdParams(task_id=created.task_id)), Ack
        )
        check(ack.result_type == "complete", f"an empty ack: {ack}")
        for _ in range(100):
            task = await get_task(client.session, created.task_id)
            if task.status in TERMINAL:
                break
            await asyncio.sleep(0.1)
        check(task.status == "cancelled", f"cancelled: {task}")
        report["cancelled"] = task.status_message

        try:
            await get_task(client.session, "no-such-task")
            raise AssertionError("tasks/get of an unknown task raised no error")
        except MCPError as err:
            check(err.code == -32602, f"unknown task is -32602, got {err.code}")
            check("no-such-task" in str(err), f"the error names the task: {err}")
            report["unknown_task"] = err.code

    # A client without the extension: the call answers when the work ends.
    async with Client(server()) as client:
        plain = await client.call_tool("count", {"units": 3})
        check(not plain.is_error, f"plain call: {plain}")
        check(plain.structured_content == {"counted": 3}, f"plain result: {plain.structured_content}")
        report["plain"] = plain.structured_content


async def main(target):
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
    report = {"transport": transport}
    await task_checks(server, report)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1:]))
