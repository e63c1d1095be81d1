"""The real-client test of `csift mcp`: the official MCP Python SDK launches
the server over stdio, lists its tools and calls each case of
tests/mcp_cases.json, comparing the structured answer with the CLI's
`--format json` for the same arguments on the same home.

Usage: python tests/mcp_client.py CSIFT_BINARY CLAUDE_HOME
Run by tests/mcp.rs (python_sdk_client_runs_every_tool) with the venv .ci/run
makes; prints "mcp client: N cases equal" and exits 0, or says what differs.
"""

import asyncio
import json
import os
import re
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client

AGO = re.compile(r"\(\d+[dhms](\d+[hms])? ago\)")
EXPECTED_TOOLS = {
    "list_sessions", "search", "show", "verbatim", "stats", "agents", "audit",
    "status", "tasks", "files", "recover",
}


def steady(v):
    """Drop what differs between two runs: timings and clock-relative ages."""
    if isinstance(v, dict):
        return {k: steady(x) for k, x in v.items() if k != "elapsed_ms"}
    if isinstance(v, list):
        return [steady(x) for x in v]
    if isinstance(v, str):
        return AGO.sub("(… ago)", v)
    return v


def cli_json(binary, home, args):
    out = subprocess.run(
        [binary, *args, "--format", "json", "--claude-home", home],
        capture_output=True, check=False,
    )
    if out.returncode > 1:
        raise SystemExit(f"csift {args}: exit {out.returncode}: {out.stderr.decode()}")
    return [json.loads(line) for line in out.stdout.decode().splitlines() if line]


async def main(binary, home):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "mcp_cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    params = StdioServerParameters(command=binary, args=["mcp", "--claude-home", home], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "csift", init.server_info
            tools = {t.name: t for t in (await session.list_tools()).tools}
            missing = EXPECTED_TOOLS - tools.keys()
            assert not missing, f"tools missing: {missing}"
            for name, tool in tools.items():
                props = tool.input_schema.get("properties", {})
                assert "max_chars" in props and "offset" in props, name
            for case in cases:
                args = dict(case["args"], max_chars=100_000_000)
                res = await session.call_tool(case["tool"], args)
                assert not res.is_error, f"{case['tool']}: {res.content}"
                got = res.structured_content["objects"]
                want = cli_json(binary, home, case["cli"])
                if steady(got) != steady(want):
                    raise SystemExit(
                        f"{case['tool']} {case['args']} differs from csift {case['cli']}:\n"
                        f"mcp: {json.dumps(got)[:2000]}\ncli: {json.dumps(want)[:2000]}"
                    )
            # An error answers the call (isError) and the session goes on.
            bad = await session.call_tool("show", {"targets": ["@0000dead"]})
            assert bad.is_error, bad
            again = await session.call_tool("list_sessions", {"max_count": 1})
            assert again.structured_content["returned"] == 1, again
    print(f"mcp client: {len(cases)} cases equal ({len(tools)} tools listed)")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
