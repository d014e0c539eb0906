#include "sessionscommand.h"

#include "store/sessionstore.h"

#include "subcommandparser.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

namespace {
const QCommandLineOption
    dbOption(QStringLiteral("db"),
             QStringLiteral("The workspace database (default: ACCELOPT_WORKSPACE_DB, else the "
                            "per-user one)."),
             QStringLiteral("PATH"));
const QCommandLineOption jsonOption(QStringLiteral("json"), QStringLiteral("Print JSON."));

bool parseOrFail(QCommandLineParser &parser, const QString &sub, const QStringList &arguments, int &status)
{
    parser.addOption(dbOption);
    parser.addOption(jsonOption);
    return SubcommandParser::parse(parser, QStringLiteral("accelopt sessions ") + sub, arguments, status);
}

QJsonValue orNull(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QJsonObject sessionJson(const SessionRecord &s)
{
    return QJsonObject{{QStringLiteral("id"), s.id},
                       {QStringLiteral("task"), s.taskName},
                       {QStringLiteral("task_ref"), s.task},
                       {QStringLiteral("target"), s.target},
                       {QStringLiteral("backend"), s.backend},
                       {QStringLiteral("host"), s.host},
                       {QStringLiteral("status"), SessionRecord::statusName(s.status)},
                       {QStringLiteral("stop_reason"), s.stopReason},
                       {QStringLiteral("config"), s.config},
                       {QStringLiteral("created"), s.created.toString(Qt::ISODateWithMs)},
                       {QStringLiteral("updated"), s.updated.toString(Qt::ISODateWithMs)},
                       {QStringLiteral("iteration"), s.currentIteration},
                       {QStringLiteral("step"), s.currentStep}};
}
} // namespace

int SessionsCommand::run(const QStringList &arguments)
{
    const QString sub = arguments.value(0);
    if (sub == QStringLiteral("list"))
        return list(arguments.mid(1));
    if (sub == QStringLiteral("show"))
        return show(arguments.mid(1));
    if (sub.isEmpty() || sub == QStringLiteral("--help") || sub == QStringLiteral("-h")) {
        // Asked for, the usage is the output; without a subcommand it is a usage error's text.
        QTextStream(sub.isEmpty() ? stderr : stdout)
            << "Usage: accelopt sessions list|show ...\n"
               "  list [--json]          the sessions, newest first\n"
               "  show ID [--json]       one session: iterations, candidates by status, cost\n"
               "ID may be abbreviated. Both take --db PATH; the default is "
            << SessionStore::defaultPath() << "\n";
        return sub.isEmpty() ? 2 : 0;
    }
    SubcommandParser::err() << "accelopt sessions: unknown subcommand '" << sub << "' (list, show)\n";
    return 2;
}

int SessionsCommand::list(const QStringList &arguments)
{
    QCommandLineParser parser;
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("list"), arguments, status))
        return status;
    const QString path = parser.isSet(dbOption) ? parser.value(dbOption) : SessionStore::defaultPath();
    QTextStream out(stdout);
    // Listing must not create a workspace as a side effect: no file simply means no sessions yet.
    if (!QFileInfo::exists(path)) {
        if (parser.isSet(jsonOption))
            out << "[]\n";
        else
            out << "no sessions yet (no workspace database at " << path << ")\n";
        return 0;
    }
    SessionStore store(path);
    if (!store.open()) {
        SubcommandParser::err() << "accelopt sessions list: " << store.lastError() << "\n";
        return 1;
    }
    const QList<SessionRecord> sessions = store.sessions();
    if (parser.isSet(jsonOption)) {
        QJsonArray array;
        for (const SessionRecord &s : sessions)
            array.append(sessionJson(s));
        out << QJsonDocument(array).toJson(QJsonDocument::Indented);
        return 0;
    }
    for (const SessionRecord &s : sessions)
        out << QStringLiteral("%1  %2 %3 %4 iteration %5  %6\n")
                   .arg(s.id.left(8), s.taskName.leftJustified(20),
                        SessionRecord::statusName(s.status).leftJustified(8),
                        (s.target + u'/' + s.backend).leftJustified(9))
                   .arg(s.currentIteration)
                   .arg(s.updated.toLocalTime().toString(QStringLiteral("yyyy-MM-dd hh:mm")));
    if (sessions.isEmpty())
        out << "no sessions yet\n";
    return 0;
}

int SessionsCommand::show(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("id"),
                                 QStringLiteral("The session (a unique prefix is enough)."));
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("show"), arguments, status))
        return status;
    if (parser.positionalArguments().size() != 1) {
        SubcommandParser::err()
            << "accelopt sessions show: give one session id (see 'accelopt sessions list')\n";
        return 2;
    }
    const QString path = parser.isSet(dbOption) ? parser.value(dbOption) : SessionStore::defaultPath();
    if (!QFileInfo::exists(path)) {
        SubcommandParser::err() << "accelopt sessions show: no workspace database at " << path << "\n";
        return 1;
    }
    SessionStore store(path);
    if (!store.open()) {
        SubcommandParser::err() << "accelopt sessions show: " << store.lastError() << "\n";
        return 1;
    }
    const auto session = store.findSession(parser.positionalArguments().first());
    if (!session) {
        SubcommandParser::err() << "accelopt sessions show: " << store.lastError() << "\n";
        return 1;
    }
    const auto iterations = store.statistics().iterationSummaries(session->id);
    const auto counts = store.statistics().candidateCountsByStatus(session->id);
    const auto cost = store.statistics().costTotals(session->id);
    const auto best = store.bestCandidate(session->id);
    const QString confirmOn = session->config.value(QStringLiteral("confirm_on")).toString();
    const auto device = store.statistics().deviceCounts(session->id);
    QTextStream out(stdout);
    if (parser.isSet(jsonOption)) {
        QJsonObject o = sessionJson(*session);
        QJsonArray its;
        for (const auto &it : iterations)
            its.append(QJsonObject{{QStringLiteral("iteration"), it.iteration},
                                   {QStringLiteral("candidates"), it.candidates},
                                   {QStringLiteral("correct"), it.correct},
                                   {QStringLiteral("best_latency_ms"), orNull(it.bestLatencyMs)},
                                   {QStringLiteral("best_percent_of_peak"), orNull(it.bestPercentOfPeak)},
                                   {QStringLiteral("best_candidate"), it.bestCandidateId}});
        o.insert(QStringLiteral("iterations"), its);
        QJsonObject byStatus;
        for (auto it = counts.cbegin(); it != counts.cend(); ++it)
            byStatus.insert(it.key(), it.value());
        o.insert(QStringLiteral("candidates_by_status"), byStatus);
        o.insert(QStringLiteral("best_candidate"),
                 best ? QJsonValue(best->id) : QJsonValue(QJsonValue::Null));
        if (!confirmOn.isEmpty())
            o.insert(QStringLiteral("confirmation"),
                     QJsonObject{{QStringLiteral("confirm_on"), confirmOn},
                                 {QStringLiteral("device_evaluations"), device.onDevice},
                                 {QStringLiteral("device_evaluations_saved"), device.simulatedOnly}});
        o.insert(QStringLiteral("cost"),
                 QJsonObject{{QStringLiteral("calls"), cost.calls},
                             {QStringLiteral("failed_calls"), cost.failedCalls},
                             {QStringLiteral("prompt_tokens"), cost.promptTokens},
                             {QStringLiteral("completion_tokens"), cost.completionTokens},
                             {QStringLiteral("calls_without_tokens"), cost.callsWithoutTokens},
                             {QStringLiteral("cost_usd"), cost.costUsd},
                             {QStringLiteral("calls_without_cost"), cost.callsWithoutCost}});
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
        return 0;
    }
    out << "session   " << session->id << "\n"
        << "task      " << session->taskName << " on " << session->target << "/" << session->backend
        << (session->host.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(session->host)) << "\n"
        << "status    " << SessionRecord::statusName(session->status) << ", at iteration "
        << session->currentIteration
        << (session->currentStep.isEmpty() ? QString()
                                           : QStringLiteral(" after '%1'").arg(session->currentStep))
        << (session->stopReason.isEmpty() ? QString()
                                          : QStringLiteral(", stopped by: %1").arg(session->stopReason))
        << "\n"
        << "started   " << session->created.toLocalTime().toString(Qt::ISODate) << "\n\n"
        << "iteration  candidates  correct  best latency (ms)  % of peak\n";
    for (const auto &it : iterations)
        out << QStringLiteral("%1  %2  %3  %4  %5\n")
                   .arg(it.iteration, 9)
                   .arg(it.candidates, 10)
                   .arg(it.correct, 7)
                   .arg(it.bestLatencyMs ? QString::number(*it.bestLatencyMs, 'f', 4) : QStringLiteral("-"),
                        17)
                   .arg(it.bestPercentOfPeak ? QString::number(*it.bestPercentOfPeak, 'f', 1)
                                             : QStringLiteral("-"),
                        9);
    out << "\ncandidates by status:";
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        out << " " << it.key() << "=" << it.value();
    out << (counts.isEmpty() ? " none yet\n" : "\n");
    out << "LLM cost so far: $" << QString::number(cost.costUsd, 'f', 4) << " in " << cost.calls << " calls, "
        << cost.promptTokens << " prompt + " << cost.completionTokens << " completion tokens";
    if (cost.callsWithoutCost > 0 || cost.callsWithoutTokens > 0)
        out << " (" << cost.callsWithoutCost << " calls without a price, " << cost.callsWithoutTokens
            << " without token counts: not included)";
    out << "\n";
    if (!confirmOn.isEmpty())
        out << "confirmed on " << confirmOn << ": " << device.onDevice << " candidates measured on the device, "
            << device.simulatedOnly << " simulated only (device evaluations saved)\n";
    if (best)
        out << "best kernel: candidate " << best->id << " (iteration " << best->iteration << ")\n";
    return 0;
}
