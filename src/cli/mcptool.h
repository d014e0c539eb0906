#pragma once

#include <QJsonObject>
#include <QString>

#include <functional>

class McpCall;

// One tool of `accelopt mcp`, as tools/list shows it, and what a call of it starts. The server checks the
// arguments against inputSchema before run() sees them.
struct McpTool
{
    QString name;
    QString title;
    QString description;
    QJsonObject inputSchema;
    QJsonObject outputSchema; // empty: none declared
    std::function<void(McpCall *call)> run;

    QJsonObject listing() const;
};
