"""The official MCP Python SDK as an OAuth client: connects to the
Streamable HTTP endpoint at URL with the SDK's `OAuthClientProvider`, which
on the first 401 discovers the protected-resource metadata (RFC 9728: the
`resource_metadata` URL of `WWW-Authenticate`), checks its `resource`
against URL, discovers the authorization server, registers, authorizes
and gets a token; then it lists the tools and calls `whoami`.

Run as `python mcp_oauth_client.py URL`. Prints one JSON document:
`{"tools": [...], "text": "..."}`, or `{"error": "..."}` when the flow
failed. The authorization step needs no browser: the authorization
server's answer is a redirect carrying the code, read here.
"""

import asyncio
import json
import sys
import traceback
from urllib.parse import parse_qs, urlparse

import httpx

from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT = "http://127.0.0.1:1/callback"


class Memory(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


async def main(url):
    redirected = {}

    async def redirect_handler(authorization_url: str) -> None:
        async with httpx.AsyncClient() as client:
            answer = await client.get(authorization_url, follow_redirects=False)
        query = parse_qs(urlparse(answer.headers["location"]).query)
        redirected["code"] = query["code"][0]
        redirected["state"] = query.get("state", [None])[0]

    async def callback_handler() -> tuple[str, str | None]:
        return redirected["code"], redirected["state"]

    auth = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="terse test",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=Memory(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    try:
        async with streamablehttp_client(url, auth=auth) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                result = await session.call_tool("whoami", {})
        print(json.dumps({
            "tools": sorted(tool.name for tool in tools.tools),
            "text": result.content[0].text,
        }))
    except BaseException as err:  # the flow's errors come wrapped in groups
        while isinstance(err, BaseExceptionGroup) and err.exceptions:
            err = err.exceptions[0]
        traceback.print_exception(err)
        print(json.dumps({"error": f"{type(err).__name__}: {err}"}))


asyncio.run(main(sys.argv[1]))
