#include "profilecommand.h"

#include "model/candidate.h"
#include "profile/explorerprofileimport.h"
#include "store/sessionstore.h"

#include "subcommandparser.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

int ProfileCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        summary() +
        QStringLiteral("\n\nIn Neuron Explorer's Device Trace Viewer, zoom to the whole run, click Export to CSV, "
                       "tick Instructions and DMA transfers (aggregated by queue), turn sampling off, and pass "
                       "the files here. accelopt profile import CANDIDATE Instruction.csv "
                       "DmaPacketAggregated.csv"));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("The workspace database (default: ACCELOPT_WORKSPACE_DB, else "
                                               "the per-user one)."),
                                QStringLiteral("PATH"));
    const QCommandLineOption run(QStringLiteral("run"),
                                 QStringLiteral("The evaluation's run index (default: the candidate's first run "
                                                "measured on a device)."),
                                 QStringLiteral("N"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print the stored profile as JSON."));
    parser.addOptions({db, run, json});
    parser.addPositionalArgument(QStringLiteral("import"), QStringLiteral("The action (import)."));
    parser.addPositionalArgument(QStringLiteral("candidate"), QStringLiteral("A candidate id or its prefix."));
    parser.addPositionalArgument(QStringLiteral("files"), QStringLiteral("The CSV files Explorer exported."));
    int status = 0;
    if (!SubcommandParser::parse(parser, QStringLiteral("accelopt profile"), arguments, status))
        return status;
    const QStringList pos = parser.positionalArguments();
    QTextStream &err = SubcommandParser::err();
    if (pos.size() < 3 || pos.first() != QStringLiteral("import")) {
        err << "accelopt profile: usage: accelopt profile import CANDIDATE Instruction.csv "
               "[DmaPacketAggregated.csv] [--run N] [--db PATH] [--json]\n";
        return 2;
    }
    int runIndex = -1;
    if (parser.isSet(run)) {
        bool ok = false;
        runIndex = parser.value(run).toInt(&ok);
        if (!ok || runIndex < 0) {
            err << "accelopt profile: --run takes a run index (0, 1, ...), not '" << parser.value(run) << "'\n";
            return 2;
        }
    }
    const QString path = parser.isSet(db) ? parser.value(db) : SessionStore::defaultPath();
    if (!QFileInfo::exists(path)) {
        err << "accelopt profile: no workspace at " << path << " (--db names another)\n";
        return 1;
    }
    SessionStore store(path);
    if (!store.open()) {
        err << "accelopt profile: " << store.lastError() << "\n";
        return 1;
    }
    const std::optional<Candidate> candidate = store.findCandidate(pos.at(1));
    if (!candidate) {
        err << "accelopt profile: no candidate '" << pos.at(1) << "' in " << path
            << (store.lastError().isEmpty() ? QString() : QStringLiteral(" (%1)").arg(store.lastError())) << "\n";
        return 1;
    }
    const ExplorerProfileImport::Outcome o =
        ExplorerProfileImport::attach(store, candidate->id, runIndex, pos.mid(2));
    if (!o.ok) {
        err << "accelopt profile: " << o.error << "\n";
        return 1;
    }
    QTextStream out(stdout);
    const QJsonObject stored = o.evaluation.raw.value(QStringLiteral("profile")).toObject();
    if (parser.isSet(json)) {
        out << QJsonDocument(stored).toJson(QJsonDocument::Indented);
        return 0;
    }
    const EvalProfile &p = *o.evaluation.profile;
    out << "imported into candidate " << candidate->id << " run " << o.runIndex << " (" << o.evaluation.hostName()
        << ", " << o.evaluation.sdk << ")\n";
    out << "instructions " << p.instructionCount << ", busy ns:";
    for (int e = 0; e < EvalProfile::EngineCount; ++e)
        out << " " << EvalProfile::engineName(e) << " " << QString::number(p.engineBusyNs[e], 'f', 0);
    out << "\n";
    for (const EvalProfile::LineCost &c : p.hottest(5))
        out << "  line " << c.line << ": " << QString::number(c.totalNs(), 'f', 0) << " ns, " << c.instructions
            << " instructions, " << c.bytes << " bytes\n";
    for (const QJsonValue &n : stored.value(QStringLiteral("notes")).toArray())
        out << "note: " << n.toString() << "\n";
    return 0;
}
