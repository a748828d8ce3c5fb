"""What the MCP test peers share: the server a TARGET names, and a failed check.

TARGET is an http(s) URL of the /mcp endpoint (TOOLWRIGHT_TOKEN, when set, is sent as a
bearer token) or a command line that serves on stdio.
"""

import os

import httpx2
from mcp import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def server_of(target):
    """The SDK's server for TARGET (a list of arguments) and the transport's name."""
    if target[0].startswith("http"):
        headers = {}
        if os.environ.get("TOOLWRIGHT_TOKEN"):
            headers["Authorization"] = f"Bearer {os.environ['TOOLWRIGHT_TOKEN']}"
        client = httpx2.AsyncClient(headers=headers)
        return streamable_http_client(target[0], http_client=client), "http"
    return StdioServerParameters(command=target[0], args=target[1:]), "stdio"
