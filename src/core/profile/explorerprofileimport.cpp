#include "explorerprofileimport.h"

#include "common/datapaths.h"
#include "hosts/hostconfig.h"
#include "hosts/runnerenvironment.h"
#include "model/candidate.h"
#include "store/sessionstore.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>

namespace {
constexpr int convertTimeoutMs = 300000; // a full unsampled export of a long run is large; the runner is local
constexpr int runsToSearch = 3;          // run 0 (the search's), remeasureRun, simulatedRun
constexpr int timelineCap = 200000;      // what the window draws of a benchmark; kept in memory, never stored
} // namespace

std::optional<QJsonObject> ExplorerProfileImport::convert(const QStringList &files, const QString &source,
                                                          const QJsonObject &metrics, QString &error)
{
    for (const QString &f : files)
        if (!QFileInfo(f).isFile()) {
            error = QStringLiteral("%1: no such file (export Instruction.csv and DmaPacketAggregated.csv from "
                                   "Neuron Explorer's Device Trace Viewer)")
                        .arg(f);
            return std::nullopt;
        }
    QTemporaryDir dir;
    const QString kernelPath = dir.filePath(QStringLiteral("kernel.py"));
    QFile kernel(kernelPath);
    if (!dir.isValid() || !kernel.open(QIODevice::WriteOnly) || kernel.write(source.toUtf8()) < 0) {
        error = QStringLiteral("could not write the kernel to a temporary folder: %1").arg(kernel.errorString());
        return std::nullopt;
    }
    kernel.close();
    const QString summaryPath = dir.filePath(QStringLiteral("summary.json"));
    QFile summary(summaryPath);
    if (!summary.open(QIODevice::WriteOnly) || summary.write(QJsonDocument(metrics).toJson()) < 0) {
        error = QStringLiteral("could not write the summary to a temporary folder: %1").arg(summary.errorString());
        return std::nullopt;
    }
    summary.close();
    QStringList args{QStringLiteral("-m"), QStringLiteral("accelopt_runner"), QStringLiteral("explorer-profile"),
                     QStringLiteral("--kernel"), kernelPath, QStringLiteral("--timeline-cap"),
                     QString::number(timelineCap), QStringLiteral("--summary"), summaryPath};
    if (metrics.value(QStringLiteral("total_time")).toDouble() > 0)
        args << QStringLiteral("--total-time-ns")
             << QString::number(metrics.value(QStringLiteral("total_time")).toDouble() * 1e9, 'g', 17);
    for (const QString &f : files)
        args << QFileInfo(f).absoluteFilePath();
    QProcess p;
    p.setProcessEnvironment(RunnerEnvironment::forLocalRunner(DataPaths::nkibenchDir()));
    const QString python = HostConfig{}.pythonForLocal();
    p.start(python, args);
    if (!p.waitForStarted() || !p.waitForFinished(convertTimeoutMs)) {
        p.kill();
        p.waitForFinished();
        error = QStringLiteral("could not run the runner's explorer-profile with %1: %2").arg(python, p.errorString());
        return std::nullopt;
    }
    const QByteArray out = p.readAllStandardOutput().trimmed();
    const QJsonObject reply = QJsonDocument::fromJson(out.split('\n').last()).object();
    if (reply.value(QStringLiteral("op")).toString() != QStringLiteral("profile")) {
        error = QStringLiteral("the runner's explorer-profile gave no answer (exit %1): %2")
                    .arg(p.exitCode())
                    .arg(QString::fromUtf8(p.readAllStandardError()).trimmed().right(2000));
        return std::nullopt;
    }
    if (!reply.value(QStringLiteral("ok")).toBool()) {
        error = reply.value(QStringLiteral("error")).toString();
        return std::nullopt;
    }
    return reply.value(QStringLiteral("profile")).toObject();
}

ExplorerProfileImport::Outcome ExplorerProfileImport::attach(SessionStore &store, const QString &candidateId,
                                                             int runIndex, const QStringList &files)
{
    Outcome o;
    const std::optional<Candidate> candidate = store.candidate(candidateId);
    if (!candidate) {
        o.error = QStringLiteral("no candidate %1 in the workspace: a profile is stored with a session's "
                                 "evaluation; open the candidate from the Sessions dock, or run "
                                 "`accelopt sessions` for its id")
                      .arg(candidateId);
        return o;
    }
    std::optional<Evaluation> e;
    if (runIndex >= 0) {
        e = store.evaluation(candidateId, runIndex);
        o.runIndex = runIndex;
    } else {
        // the first run measured on a device; else the first run, to say what measured it
        for (int run = 0; run < runsToSearch && !(e && e->onHardware()); ++run) {
            std::optional<Evaluation> r = store.evaluation(candidateId, run);
            if (r && (!e || r->onHardware())) {
                e = std::move(r);
                o.runIndex = run;
            }
        }
    }
    if (!e) {
        o.error = runIndex >= 0 ? QStringLiteral("candidate %1 has no run %2").arg(candidateId).arg(runIndex)
                                : QStringLiteral("candidate %1 has no evaluation").arg(candidateId);
        return o;
    }
    if (!e->onHardware()) {
        o.error = QStringLiteral("candidate %1 was measured on %2, not on a device: a Neuron Explorer profile "
                                 "belongs to a hardware evaluation (a session on a Neuron host, or one that "
                                 "confirms on hardware)")
                      .arg(candidateId, e->backend.isEmpty() ? QStringLiteral("nkisim") : e->backend);
        return o;
    }
    if (!e->ok()) {
        o.error = QStringLiteral("candidate %1's hardware evaluation did not succeed (%2): there is no run to "
                                 "profile")
                      .arg(candidateId, e->error.left(200));
        return o;
    }
    const std::optional<QJsonObject> profile = convert(files, candidate->source, e->metrics, o.error);
    if (!profile)
        return o;
    QJsonObject stored = *profile;
    QStringList names;
    for (const QString &f : files)
        names << QFileInfo(f).fileName();
    stored.insert(QStringLiteral("imported_from"), names.join(QStringLiteral(", ")));
    QJsonObject raw = e->raw;
    raw.insert(QStringLiteral("profile"), stored);
    e->profile = Evaluation::profileFrom(raw); // the stored row keeps the profile without its timeline
    if (!e->profile) {
        o.error = QStringLiteral("the converted profile is malformed: %1")
                      .arg(raw.value(QStringLiteral("profile_error")).toString());
        return o;
    }
    e->raw = raw;
    if (!store.replaceEvaluation(candidateId, *e, o.runIndex)) {
        o.error = QStringLiteral("could not store the profile: %1").arg(store.lastError());
        return o;
    }
    o.ok = true;
    o.evaluation = *e;
    return o;
}
