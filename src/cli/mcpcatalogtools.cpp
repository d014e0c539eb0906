// memory_search and tasks_list: quick reads of what the workbench knows, as `accelopt memory search --json` and
// `accelopt tasks list --json`.
#include "mcptools.h"

#include "common/datapaths.h"
#include "mcpcall.h"
#include "mcpschema.h"
#include "memory/experiencestore.h"
#include "memorycommand.h"
#include "taskscommand.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

#include <limits>

namespace {

void runMemorySearch(McpCall *call)
{
    const QJsonObject &a = call->arguments();
    const QString words = a.value(QStringLiteral("query")).toString().trimmed();
    const QString task = a.value(QStringLiteral("task")).toString();
    const int limit = a.value(QStringLiteral("limit")).toInt(20);
    const QString path = ExperienceStore::defaultPath();
    QList<ExperienceRecord> records;
    QString error;
    if (!MemoryCommand::find(path, words, task, limit, records, error))
        return call->fail(QStringLiteral("cannot search the memory: %1").arg(error));
    QJsonArray list;
    for (const ExperienceRecord &r : records)
        list.append(MemoryCommand::recordJson(r));
    call->succeed({{QStringLiteral("memory"), QDir::toNativeSeparators(path)},
                   {QStringLiteral("count"), list.size()},
                   {QStringLiteral("experiences"), list}},
                  QStringLiteral("%1 experience(s)%2").arg(list.size()).arg(
                      words.isEmpty() ? QString() : QStringLiteral(" match '%1'").arg(words)));
}

void runTasksList(McpCall *call)
{
    const QString near = call->arguments().value(QStringLiteral("near")).toString();
    if (!near.isEmpty() && !QFileInfo::exists(near))
        return call->fail(QStringLiteral("near: %1 does not exist").arg(near));
    const QJsonArray tasks =
        TasksCommand::entriesJson(TaskCatalog::scanAll(DataPaths::tasksDir(), near.isEmpty() ? QDir::currentPath() : near));
    call->succeed({{QStringLiteral("tasks"), tasks}}, QStringLiteral("%1 task(s)").arg(tasks.size()));
}

} // namespace

McpTool McpTools::memorySearch()
{
    const QJsonObject input = McpSchema::object(
        {{"query", McpSchema::string(QStringLiteral("Words to search for in titles, lessons and snippets (full text; a "
                                                    "trailing * matches a prefix). Empty or absent: every experience, "
                                                    "pinned first, newest first."))},
         {"task", McpSchema::string(QStringLiteral("Only experiences of this task."))},
         {"limit", McpSchema::integer(QStringLiteral("At most this many (default 20)."), 1, 1000)}});
    const QJsonObject experience = McpSchema::object(
        {{"id", McpSchema::integer(QString(), 0, std::numeric_limits<qint64>::max())},
         {"title", McpSchema::string(QString())},
         {"lesson", McpSchema::string(QString())},
         {"speedup", McpSchema::number(QStringLiteral("Measured; below 1 for a negative experience."), 0)},
         {"task", McpSchema::string(QString())}},
        {QStringLiteral("id"), QStringLiteral("title")}, false);
    const QJsonObject output = McpSchema::object(
        {{"memory", McpSchema::string(QStringLiteral("The memory database searched."))},
         {"count", McpSchema::integer(QString(), 0, 1 << 30)},
         {"experiences", McpSchema::array(experience, QStringLiteral("Slow->fast kernel pairs with the lesson each "
                                                                    "teaches, as `accelopt memory search --json`."))}},
        {QStringLiteral("memory"), QStringLiteral("count"), QStringLiteral("experiences")}, false);
    return {QStringLiteral("memory_search"),
            QStringLiteral("Search the optimization memory"),
            QStringLiteral("Search the optimization memory: the lessons earlier optimizations learned, each a slow->fast "
                           "(or fast->slow) kernel pair with its measured speedup, title, lesson and before/after "
                           "snippets, and how often it helped."),
            input,
            output,
            runMemorySearch};
}

McpTool McpTools::tasksList()
{
    const QJsonObject input = McpSchema::object(
        {{"near", McpSchema::string(QStringLiteral("Find the project's tasks above this path (default: the server's "
                                                   "working folder)."))}});
    const QJsonObject task = McpSchema::object({{"name", McpSchema::string(QString())},
                                                {"origin", McpSchema::oneOf(QString(), {QStringLiteral("project"), QStringLiteral("user"), QStringLiteral("shipped")})},
                                                {"folder", McpSchema::string(QString())},
                                                {"description", McpSchema::string(QString())},
                                                {"problem", McpSchema::string(QStringLiteral("Empty when the task is usable."))}},
                                               {QStringLiteral("name"), QStringLiteral("origin"), QStringLiteral("folder"),
                                                QStringLiteral("problem")},
                                               false);
    const QJsonObject output =
        McpSchema::object({{"tasks", McpSchema::array(task, QStringLiteral("Every task the program can see."))}},
                          {QStringLiteral("tasks")}, false);
    return {QStringLiteral("tasks_list"),
            QStringLiteral("List tasks"),
            QStringLiteral("Every task the workbench can see: the project's .accelopt/tasks above a folder, the user's, and "
                           "the shipped NKIBench tasks; their names are what bench, port and optimize_start take as task."),
            input,
            output,
            runTasksList};
}
