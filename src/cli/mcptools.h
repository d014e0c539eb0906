#pragma once

#include "mcptool.h"

#include <QJsonObject>
#include <QList>

struct Evaluation;

// The stateless tools of `accelopt mcp`, each the twin of a CLI command and parsed by that command's own
// options and checks (McpArgs): bench, compare, port, memory_search, tasks_list. The optimize tools keep
// sessions and live in McpSessions.
namespace McpTools {
QList<McpTool> all();

McpTool bench();
McpTool compare();
McpTool port();
McpTool memorySearch();
McpTool tasksList();

// The options every evaluating tool takes (host, backend, target, size, timing_only, timeout, seeds), as
// schema properties.
QJsonObject evalProperties();
// An evaluation as the bench tool returns it: `accelopt bench --json`'s summary, plus the profile summary
// (engine activity, memory traffic, hottest lines) and the recommendations of the shipped rules.
QJsonObject evaluationJson(const QString &task, const Evaluation &evaluation);
QJsonObject evaluationSchema();
} // namespace McpTools
