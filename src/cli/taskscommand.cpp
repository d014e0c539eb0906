#include "taskscommand.h"

#include "console.h"
#include "subcommandparser.h"

#include "common/datapaths.h"
#include "model/taskcatalog.h"
#include "model/tasklocations.h"

#include <QCommandLineParser>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

QJsonArray TasksCommand::entriesJson(const QList<TaskCatalog::Entry> &entries)
{
    QJsonArray a;
    for (const TaskCatalog::Entry &e : entries)
        a.append(QJsonObject{{QStringLiteral("name"), e.name},
                             {QStringLiteral("origin"), e.origin},
                             {QStringLiteral("folder"), e.folder},
                             {QStringLiteral("description"), e.description},
                             {QStringLiteral("problem"), e.problem}});
    return a;
}

int TasksCommand::run(const QStringList &arguments)
{
    const QString sub = arguments.value(0);
    if (sub != QStringLiteral("list")) {
        if (sub == QStringLiteral("--help") || sub == QStringLiteral("-h")) {
            Console::out()
                << "Usage: accelopt tasks list [--near PATH] [--json]\n"
                   "  every task the program can see from PATH (default: the current folder): the\n"
                   "  project's .accelopt/tasks above it, yours in "
                << QDir::toNativeSeparators(TaskLocations::userTasksDir())
                << ", and the shipped NKIBench tasks\n";
            return 0;
        }
        SubcommandParser::err() << "accelopt tasks: "
                                << (sub.isEmpty() ? QStringLiteral("give a subcommand")
                                                  : QStringLiteral("unknown subcommand '%1'").arg(sub))
                                << " (list)\n";
        return 2;
    }
    QCommandLineParser parser;
    parser.addOptions({{QStringLiteral("near"), QStringLiteral("Find the project's tasks above this path."),
                        QStringLiteral("PATH")},
                       {QStringLiteral("json"), QStringLiteral("Print JSON.")}});
    int status = 0;
    if (!SubcommandParser::parse(parser, QStringLiteral("accelopt tasks list"), arguments.mid(1), status))
        return status;
    const QString near =
        parser.isSet(QStringLiteral("near")) ? parser.value(QStringLiteral("near")) : QDir::currentPath();
    const QList<TaskCatalog::Entry> entries = TaskCatalog::scanAll(DataPaths::tasksDir(), near);
    QTextStream &out = Console::out();
    if (parser.isSet(QStringLiteral("json"))) {
        out << QJsonDocument(entriesJson(entries)).toJson(QJsonDocument::Indented);
        return 0;
    }
    for (const TaskLocations::Place &place : TaskLocations::search(near, DataPaths::tasksDir())) {
        out << TaskLocations::describe(place) << ":\n";
        bool any = false;
        for (const TaskCatalog::Entry &e : entries) {
            if (e.originDir != place.dir)
                continue;
            any = true;
            out << QStringLiteral("  %1 %2\n")
                       .arg(e.name, -24)
                       .arg(e.problem.isEmpty() ? e.description : QStringLiteral("UNUSABLE: ") + e.problem);
        }
        if (!any)
            out << "  (none)\n";
    }
    return 0;
}
