#include "memorycommand.h"

#include "common/regularfile.h"
#include "memory/experiencejson.h"
#include "memory/experiencestore.h"

#include "subcommandparser.h"
#include "terminaltext.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTextStream>

#include <algorithm>

namespace {
const QCommandLineOption
    memoryOption(QStringLiteral("memory"),
                 QStringLiteral("The memory database (default: ACCELOPT_MEMORY_DB, else the "
                                "per-user one)."),
                 QStringLiteral("PATH"));
const QCommandLineOption jsonOption(QStringLiteral("json"), QStringLiteral("Print JSON."));

bool parseOrFail(QCommandLineParser &parser, const QString &sub, const QStringList &arguments, int &status)
{
    parser.addOption(memoryOption);
    return SubcommandParser::parse(parser, QStringLiteral("accelopt memory ") + sub, arguments, status);
}

QString pathOf(const QCommandLineParser &parser)
{
    return parser.isSet(memoryOption) ? parser.value(memoryOption) : ExperienceStore::defaultPath();
}

bool openOrFail(ExperienceStore &store, const QString &sub)
{
    if (store.open())
        return true;
    SubcommandParser::err() << "accelopt memory " << sub << ": " << store.lastError() << "\n";
    return false;
}

QString hitRate(const ExperienceRecord &r)
{
    const QString text = ExperienceRecord::hitRateText(r.decided, r.faster);
    return text.isEmpty() ? QStringLiteral("-") : text;
}

void printLine(QTextStream &out, const ExperienceRecord &r)
{
    out << QStringLiteral("%1 %2 %3 %4x %5 %6 %7 %8\n")
               .arg(r.id, 5)
               .arg(r.pinned ? QStringLiteral("*") : QStringLiteral(" "))
               .arg(r.isNegative() ? QStringLiteral("-") : QStringLiteral("+"))
               .arg(r.experience.speedup, 6, 'f', 3)
               .arg(TerminalText::line(r.task), -20)
               .arg(QStringLiteral("shown %1").arg(r.shown), -9)
               .arg(QStringLiteral("hit %1").arg(hitRate(r)), -14)
               .arg(TerminalText::line(r.experience.title.simplified()));
}

bool parseId(const QCommandLineParser &parser, const QString &sub, qint64 &id)
{
    bool ok = false;
    id = parser.positionalArguments().value(0).toLongLong(&ok);
    if (parser.positionalArguments().size() == 1 && ok)
        return true;
    SubcommandParser::err() << "accelopt memory " << sub
                            << ": give one experience id (a number from 'accelopt memory list')\n";
    return false;
}
} // namespace

QJsonObject MemoryCommand::recordJson(const ExperienceRecord &r)
{
    QJsonObject o = ExperienceJson::toJson(r);
    o.insert(QStringLiteral("id"), r.id);
    // Usage evidence is this memory's own (like the id), so it is shown here and not exported.
    o.insert(QStringLiteral("shown"), r.shown);
    o.insert(QStringLiteral("decided"), r.decided);
    o.insert(QStringLiteral("faster"), r.faster);
    o.insert(QStringLiteral("hit_rate"), r.decided > 0 ? QJsonValue(r.hitRate()) : QJsonValue());
    return o;
}

bool MemoryCommand::find(const QString &path, const QString &words, const QString &task, int limit,
                         QList<ExperienceRecord> &records, QString &error)
{
    records.clear();
    if (!QFileInfo::exists(path))
        return true; // no memory yet: nothing found, and nothing created by looking
    ExperienceStore store(path);
    if (!store.open()) {
        error = store.lastError();
        return false;
    }
    records = words.isEmpty() ? store.list(task) : store.search(words, limit > 0 ? limit : 100);
    if (!store.lastError().isEmpty()) {
        error = store.lastError();
        records.clear();
        return false;
    }
    if (!words.isEmpty() && !task.isEmpty())
        records.erase(std::remove_if(records.begin(), records.end(),
                                     [&task](const ExperienceRecord &r) { return r.task != task; }),
                      records.end());
    if (limit > 0)
        records = records.mid(0, limit);
    return true;
}

int MemoryCommand::run(const QStringList &arguments)
{
    const QString sub = arguments.value(0);
    const QStringList rest = arguments.mid(1);
    if (sub == QStringLiteral("list") || sub == QStringLiteral("search"))
        return list(sub, rest);
    if (sub == QStringLiteral("show"))
        return show(rest);
    if (sub == QStringLiteral("pin") || sub == QStringLiteral("unpin") || sub == QStringLiteral("delete"))
        return change(sub, rest);
    if (sub == QStringLiteral("export"))
        return exportTo(rest);
    if (sub == QStringLiteral("import"))
        return importFrom(rest);
    if (sub.isEmpty() || sub == QStringLiteral("--help") || sub == QStringLiteral("-h")) {
        // Asked for, the usage is the output; without a subcommand it is a usage error's text.
        QTextStream(sub.isEmpty() ? stderr : stdout)
            << "Usage: accelopt memory list|search|show|pin|unpin|delete|export|import ...\n"
               "  list [--task T] [--json]     the experiences, pinned first, newest first, with how\n"
               "                               many plans were shown each and their hit rate (the share\n"
               "                               of measured plans that led to a faster kernel)\n"
               "  search WORDS... [--json]     full-text search (a trailing * matches a prefix)\n"
               "  show ID [--json]             one experience in full, with every plan it was shown to\n"
               "  pin ID | unpin ID | delete ID\n"
               "  export [FILE]                write a JSON export (to stdout without FILE)\n"
               "  import FILE                  add the experiences of an export, skipping duplicates;\n"
               "                               an entry whose title is over 300 characters, lesson over\n"
               "                               16384 or a snippet over 65536 is rejected, the rest added\n"
               "All take --memory PATH; the default is "
            << ExperienceStore::defaultPath() << "\n";
        return sub.isEmpty() ? 2 : 0;
    }
    SubcommandParser::err() << "accelopt memory: unknown subcommand '" << sub
                            << "' (list, search, show, pin, unpin, delete, export, import)\n";
    return 2;
}

int MemoryCommand::list(const QString &sub, const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption(jsonOption);
    parser.addOption({QStringLiteral("task"), QStringLiteral("Only this task."), QStringLiteral("TASK")});
    parser.addOption({QStringLiteral("limit"), QStringLiteral("At most N results."), QStringLiteral("N"),
                      QStringLiteral("100")});
    if (sub == QStringLiteral("search"))
        parser.addPositionalArgument(QStringLiteral("words"), QStringLiteral("What to search for."));
    int status = 0;
    if (!parseOrFail(parser, sub, arguments, status))
        return status;
    if (sub == QStringLiteral("search") && parser.positionalArguments().isEmpty()) {
        SubcommandParser::err() << "accelopt memory search: give the words to search for\n";
        return 2;
    }
    if (sub == QStringLiteral("list") && !parser.positionalArguments().isEmpty()) {
        SubcommandParser::err() << "accelopt memory list: unexpected argument '"
                                << parser.positionalArguments().first()
                                << "'; to search, use 'accelopt memory search WORDS'\n";
        return 2;
    }
    bool limitOk = false;
    const int limit = parser.value(QStringLiteral("limit")).toInt(&limitOk);
    if (!limitOk || limit < 0) { // was read as 0, which is no limit
        SubcommandParser::err() << "accelopt memory " << sub
                                << ": --limit wants a whole number (0: no limit), not '"
                                << parser.value(QStringLiteral("limit")) << "'\n";
        return 2;
    }
    const QString path = pathOf(parser);
    QTextStream out(stdout);
    // Opening a missing memory would create its folder and an empty database: a read creates nothing.
    if (!QFileInfo::exists(path)) {
        if (parser.isSet(jsonOption))
            out << "[]\n";
        else
            out << (sub == QStringLiteral("search") ? "no experience matches" : "the memory is empty")
                << " (no memory database at " << QDir::toNativeSeparators(path) << ")\n";
        return 0;
    }
    QList<ExperienceRecord> records;
    QString error;
    if (!find(path, sub == QStringLiteral("search") ? parser.positionalArguments().join(u' ') : QString(),
              parser.value(QStringLiteral("task")), limit, records, error)) {
        SubcommandParser::err() << "accelopt memory " << sub << ": " << error << "\n";
        return 1;
    }
    if (parser.isSet(jsonOption)) {
        QJsonArray array;
        for (const ExperienceRecord &r : records)
            array.append(recordJson(r));
        out << QJsonDocument(array).toJson(QJsonDocument::Indented);
        return 0;
    }
    for (const ExperienceRecord &r : records)
        printLine(out, r);
    if (records.isEmpty())
        out << (sub == QStringLiteral("search") ? "no experience matches\n" : "the memory is empty\n");
    return 0;
}

int MemoryCommand::show(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption(jsonOption);
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("The experience."));
    int status = 0;
    qint64 id = 0;
    if (!parseOrFail(parser, QStringLiteral("show"), arguments, status))
        return status;
    if (!parseId(parser, QStringLiteral("show"), id))
        return 2;
    ExperienceStore store(pathOf(parser));
    if (!openOrFail(store, QStringLiteral("show")))
        return 1;
    const auto r = store.get(id);
    if (!r) {
        SubcommandParser::err() << "accelopt memory show: no experience " << id << " in " << store.path()
                                << "\n";
        return 1;
    }
    QTextStream out(stdout);
    if (parser.isSet(jsonOption)) {
        out << QJsonDocument(recordJson(*r)).toJson(QJsonDocument::Indented);
        return 0;
    }
    // Every text of an experience came from a model or an imported file: printed as text, never as commands.
    out << "#" << r->id << " " << TerminalText::line(r->experience.title) << "\n"
        << "  kind      " << r->kindName() << (r->pinned ? ", pinned" : "") << "\n"
        << "  speedup   " << r->experience.speedup << "x\n"
        << "  task      " << TerminalText::line(r->task)
        << (r->target.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(TerminalText::line(r->target)))
        << "\n";
    if (!r->sessionId.isEmpty())
        out << "  session   " << TerminalText::line(r->sessionId) << "\n";
    out << "  shown     to " << r->shown << " plan(s); hit rate " << hitRate(*r)
        << " (plans that led to a faster kernel, of those measured)\n";
    for (const RetrievalRecord &x : store.retrievalsOf(r->id))
        out << "            " << TerminalText::line(x.sessionId) << " iteration " << x.iteration << " rank " << x.rank + 1 << ": "
            << RetrievalRecord::outcomeText(x.outcome) << "\n";
    out << "  updated   " << r->updated.toString(Qt::ISODate) << "\n\n"
        << TerminalText::block(r->experience.lesson) << "\n";
    if (!r->experience.snippetBefore.isEmpty())
        out << "\nBefore:\n" << TerminalText::block(r->experience.snippetBefore) << "\n";
    if (!r->experience.snippetAfter.isEmpty())
        out << "\nAfter:\n" << TerminalText::block(r->experience.snippetAfter) << "\n";
    return 0;
}

int MemoryCommand::change(const QString &sub, const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("The experience."));
    int status = 0;
    qint64 id = 0;
    if (!parseOrFail(parser, sub, arguments, status))
        return status;
    if (!parseId(parser, sub, id))
        return 2;
    ExperienceStore store(pathOf(parser));
    if (!openOrFail(store, sub))
        return 1;
    const bool ok = sub == QStringLiteral("delete") ? store.remove(id)
                                                    : store.setPinned(id, sub == QStringLiteral("pin"));
    if (!ok) {
        SubcommandParser::err() << "accelopt memory " << sub << ": " << store.lastError() << "\n";
        return 1;
    }
    QTextStream(stdout) << (sub == QStringLiteral("delete") ? "deleted "
                            : sub == QStringLiteral("pin")  ? "pinned "
                                                            : "unpinned ")
                        << id << "\n";
    return 0;
}

int MemoryCommand::exportTo(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Where to write (default: stdout)."));
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("export"), arguments, status))
        return status;
    // A missing memory exports as an empty one: exporting must not create the database it reads.
    const QString path = pathOf(parser);
    ExperienceStore store(path);
    if (QFileInfo::exists(path) && !openOrFail(store, QStringLiteral("export")))
        return 1;
    const QJsonObject doc = store.database().isOpen() ? store.exportJson() : ExperienceJson::document({});
    const QByteArray bytes = QJsonDocument(doc).toJson(QJsonDocument::Indented);
    const QString file = parser.positionalArguments().value(0);
    if (file.isEmpty() || file == QStringLiteral("-")) {
        QFile out;
        if (!out.open(stdout, QIODevice::WriteOnly))
            return 1;
        out.write(bytes);
        return 0;
    }
    QSaveFile out(file); // atomic: an interrupted export never leaves half a file behind
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
        SubcommandParser::err() << "accelopt memory export: cannot write " << file << ": "
                                << out.errorString() << "\n";
        return 1;
    }
    QTextStream(stdout) << "exported " << doc.value(QStringLiteral("experiences")).toArray().size()
                        << " experiences to " << file << "\n";
    return 0;
}

int MemoryCommand::importFrom(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("A file written by 'accelopt memory export'."));
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("import"), arguments, status))
        return status;
    if (parser.positionalArguments().size() != 1) {
        SubcommandParser::err() << "accelopt memory import: give one file to import\n";
        return 2;
    }
    const QString file = parser.positionalArguments().first();
    // A file named on the command line that is not there is a usage error, as for `accelopt bench`.
    if (!QFileInfo::exists(file)) {
        SubcommandParser::err() << "accelopt memory import: " << file
                                << " does not exist; give a file written by 'accelopt memory export'\n";
        return 2;
    }
    if (RegularFile::isSpecial(file)) {
        SubcommandParser::err() << "accelopt memory import: " << RegularFile::refusal(file)
                                << "; give a file written by 'accelopt memory export'\n";
        return 1;
    }
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) {
        SubcommandParser::err() << "accelopt memory import: cannot read " << file << ": " << in.errorString()
                                << "\n";
        return 1;
    }
    if (in.size() > ExperienceJson::maxDocumentBytes) {
        SubcommandParser::err() << "accelopt memory import: " << file
                                << " is too large for a memory export\n";
        return 1;
    }
    // Check the export before opening the memory: opening creates the database, and a refused import must
    // leave nothing behind.
    const QByteArray bytes = in.readAll();
    QList<ExperienceRecord> records;
    QString problem;
    if (!ExperienceJson::parseDocument(bytes, records, problem)) {
        SubcommandParser::err() << "accelopt memory import: " << file << ": " << problem << "\n";
        return 1;
    }
    records.clear();
    ExperienceStore store(pathOf(parser));
    if (!openOrFail(store, QStringLiteral("import")))
        return 1;
    const auto result = store.importJson(bytes);
    if (!result.ok) {
        SubcommandParser::err() << "accelopt memory import: " << file << ": " << result.error << "\n";
        return 1;
    }
    for (const QString &rejection : result.rejections)
        SubcommandParser::err() << "accelopt memory import: " << file << ": " << rejection << "\n";
    QTextStream(stdout) << "imported " << result.added << " experiences, skipped " << result.duplicates
                        << " already in the memory, rejected " << result.rejected << " over a size limit\n";
    return 0;
}
