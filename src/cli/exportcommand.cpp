#include "exportcommand.h"

#include "export/exportformat.h"
#include "export/kernelexporter.h"
#include "export/sessionexport.h"
#include "store/sessionstore.h"

#include "subcommandparser.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTextStream>

namespace {
QString shown(const QString &path)
{
    return QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath());
}
} // namespace

int ExportCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Write a session's best kernel (or --candidate) into DIR as a .py file that starts with its "
        "provenance (task, hardware, latency, speedup, lineage), and beside it the session's "
        "candidates as CSV and JSON and a Markdown report. Existing files are never replaced "
        "without --force; if any would be, nothing is written."));
    parser.addPositionalArgument(QStringLiteral("session"),
                                 QStringLiteral("The session (a unique prefix of its id is enough)."));
    const QCommandLineOption toOption(QStringLiteral("to"),
                                      QStringLiteral("The folder to export into (created when missing)."),
                                      QStringLiteral("DIR"));
    const QCommandLineOption candidateOption(
        QStringLiteral("candidate"),
        QStringLiteral("Export this candidate (a unique id prefix) instead of the session's best."),
        QStringLiteral("ID"));
    const QCommandLineOption nameOption(
        QStringLiteral("name"),
        QStringLiteral("The kernel's file name (default <task>_<session>.py; .py is added when missing). The "
                       "reports take its stem."),
        QStringLiteral("FILE.py"));
    const QCommandLineOption forceOption(QStringLiteral("force"), QStringLiteral("Replace existing files."));
    const QCommandLineOption noReportOption(QStringLiteral("no-report"),
                                            QStringLiteral("Write only the kernel, no CSV, JSON or report."));
    const QCommandLineOption dbOption(
        QStringLiteral("db"),
        QStringLiteral("The workspace database (default: ACCELOPT_WORKSPACE_DB, else the per-user one)."),
        QStringLiteral("PATH"));
    parser.addOptions({toOption, candidateOption, nameOption, forceOption, noReportOption, dbOption});
    int status = 0;
    if (!SubcommandParser::parse(parser, QStringLiteral("accelopt export"), arguments, status))
        return status;
    QTextStream &err = SubcommandParser::err();
    if (parser.positionalArguments().size() != 1) {
        err << "accelopt export: give one session id (see 'accelopt sessions list')\n";
        return 2;
    }
    const QString folder = parser.value(toOption);
    if (folder.trimmed().isEmpty()) {
        err << "accelopt export: --to DIR is required: the folder to export into\n";
        return 2;
    }
    QString fileName = parser.value(nameOption);
    if (parser.isSet(nameOption)) {
        QString problem;
        if (!SessionExport::checkFileName(fileName, problem)) {
            err << "accelopt export: --name takes a file name such as fast_silu.py, not '" << fileName
                << "'; put the folder in --to\n";
            return 2;
        }
    }

    const QString path = parser.isSet(dbOption) ? parser.value(dbOption) : SessionStore::defaultPath();
    // Exporting must not create a workspace as a side effect.
    if (!QFileInfo::exists(path)) {
        err << "accelopt export: no workspace database at " << QDir::toNativeSeparators(path)
            << ", so there is no session to export; run an optimization first, or pass --db PATH\n";
        return 1;
    }
    SessionStore store(path);
    if (!store.open()) {
        err << "accelopt export: " << store.lastError() << "\n";
        return 1;
    }
    const auto session = store.findSession(parser.positionalArguments().first());
    if (!session) {
        err << "accelopt export: " << store.lastError() << " (see 'accelopt sessions list')\n";
        return 1;
    }
    SessionExport::Request request;
    request.sessionId = session->id;
    request.candidateId = parser.value(candidateOption);
    request.folder = folder;
    request.fileName = fileName;
    request.reports = !parser.isSet(noReportOption);
    request.overwrite = parser.isSet(forceOption);
    const SessionExport::Result result = SessionExport::run(store, request);
    if (!result.ok) {
        err << "accelopt export: " << result.error;
        if (!result.existing.isEmpty() && !request.overwrite)
            err << ". Pass --force to replace, or --name to export under another name.";
        err << "\n";
        return 1;
    }
    const KernelExporter::Prepared &prepared = *result.prepared;

    QTextStream out(stdout);
    const Evaluation &e = prepared.evaluation;
    out << "exported candidate " << prepared.candidate.id.left(8) << " (iteration "
        << prepared.candidate.iteration << ") of session " << session->id.left(8) << " (" << session->taskName
        << " on " << session->target << "/" << session->backend << ")\n";
    for (const SessionExport::Output &o : result.outputs)
        out << "  " << o.label.leftJustified(7) << shown(o.path) << "\n";
    out << (e.latencyMeanMs ? ExportFormat::milliseconds(*e.latencyMeanMs)
                            : QStringLiteral("latency unknown"));
    if (prepared.speedup)
        out << ", " << ExportFormat::speedup(*prepared.speedup) << " over the baseline ("
            << ExportFormat::milliseconds(*prepared.baselineLatencyMs) << ")";
    else
        out << ", speedup unknown (the baseline has no correct timing)";
    if (e.percentOfPeak)
        out << ", " << ExportFormat::percent(*e.percentOfPeak) << " of peak";
    out << "\n";
    out << "re-measured: " << KernelExporter::remeasureText(prepared) << "\n";
    return 0;
}
