"""The official MCP Python SDK's stdio client against
`@modelcontextprotocol/server-everything`: initializes (with sampling,
elicitation and roots), runs every list method through every page, calls
every tool it lists with valid arguments, and prints one JSON document:
`{"tools", "resources", "templates", "prompts", "prompt", "read",
"calls": [{"tool", "arguments", "result"}]}`.

Run as `python mcp_everything_client.py COMMAND [ARGS...]`.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CreateMessageResult, ElicitResult, ListRootsResult, Root, TextContent

# Valid arguments for the tools that need more than their schema's defaults.
ARGUMENTS = {
    "echo": {"message": "hello from the tests"},
    "get-annotated-message": {"messageType": "success", "includeImage": True},
    "get-resource-links": {"count": 4},
    "get-resource-reference": {"resourceType": "Text", "resourceId": 3},
    "get-structured-content": {"location": "Chicago"},
    "get-sum": {"a": 2, "b": 40},
    "gzip-file-as-resource": {"name": "hello.txt.gz",
                              "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=",
                              "outputType": "resource"},
    "trigger-long-running-operation": {"duration": 0.2, "steps": 2},
    "simulate-research-query": {"topic": "token-efficient formats"},
    "trigger-sampling-request": {"prompt": "Say hi", "maxTokens": 20},
    "trigger-elicitation-request": {},
    "trigger-url-elicitation": {"url": "https://example.com/form", "elicitationId": "test-1"},
}


def example(schema):
    """A valid value for a JSON schema: its default, first enum value, or
    a plain value of its type."""
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return "example"


def arguments_for(tool):
    if tool.name in ARGUMENTS:
        return ARGUMENTS[tool.name]
    properties = tool.inputSchema.get("properties") or {}
    required = tool.inputSchema.get("required") or []
    return {name: example(properties[name]) for name in required}


async def sampling(context, params):
    return CreateMessageResult(role="assistant", model="test-model",
                               content=TextContent(type="text", text="hi from the client"))


async def elicitation(context, params):
    return ElicitResult(action="decline")


async def roots(context):
    return ListRootsResult(roots=[Root(uri="file:///tmp", name="tmp")])


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def every_page(method):
    items, cursor = [], None
    while True:
        page = await method(cursor=cursor) if cursor else await method()
        items.append(dump(page))
        cursor = page.nextCursor
        if not cursor:
            return items


async def main(command):
    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, sampling_callback=sampling,
                                 elicitation_callback=elicitation,
                                 list_roots_callback=roots) as session:
            await session.initialize()
            tools = await every_page(session.list_tools)
            resources = await every_page(session.list_resources)
            templates = await every_page(session.list_resource_templates)
            prompts = await every_page(session.list_prompts)
            first = resources[0]["resources"][0]["uri"]
            read = dump(await session.read_resource(first))
            prompt = dump(await session.get_prompt(prompts[0]["prompts"][0]["name"]))
            calls = []
            listed = (await session.list_tools()).tools
            for tool in listed:
                arguments = arguments_for(tool)
                result = await session.call_tool(tool.name, arguments)
                calls.append({"tool": tool.name, "arguments": arguments, "result": dump(result)})
    print(json.dumps({"tools": tools, "resources": resources, "templates": templates,
                      "prompts": prompts, "read": read, "prompt": prompt, "calls": calls}))


asyncio.run(main(sys.argv[1:]))
