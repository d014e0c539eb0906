#include "export/kernelexporter.h"

#include "common/buildinfo.h"
#include "common/logcategories.h"
#include "export/exportfile.h"
#include "export/exportformat.h"
#include "search/selection.h"
#include "store/sessionstore.h"

#include <QDir>

const QString KernelExporter::headerBegin = QStringLiteral("# --- AccelOpt provenance ---");
const QString KernelExporter::headerEnd = QStringLiteral("# --- end of AccelOpt provenance ---");

namespace {
QString shortId(const QString &id)
{
    return id.left(8);
}

QString describe(const SessionRecord &session)
{
    return session.taskName.isEmpty()
               ? QStringLiteral("session %1").arg(shortId(session.id))
               : QStringLiteral("session %1 (%2)").arg(shortId(session.id), session.taskName);
}

// "iteration 2, fixer round 1": where in the search a candidate was made.
QString provenanceOf(const Candidate &c)
{
    if (c.origin == Candidate::Origin::Baseline)
        return QStringLiteral("baseline");
    QString where = QStringLiteral("iteration %1, %2").arg(c.iteration).arg(Candidate::originName(c.origin));
    if (c.origin == Candidate::Origin::Fixer)
        where += QStringLiteral(" round %1").arg(c.fixRound);
    return where;
}

// Splits a leading "#!" line off, because a shebang only works as the file's very first line.
QString takeShebang(QString &text)
{
    if (!text.startsWith(QStringLiteral("#!")))
        return {};
    const qsizetype newline = text.indexOf(u'\n');
    if (newline < 0)
        return {};
    const QString shebang = text.left(newline + 1);
    text.remove(0, newline + 1);
    return shebang;
}
} // namespace

KernelExporter::KernelExporter(SessionStore &store) : m_store(store) {}

std::optional<KernelExporter::Prepared> KernelExporter::fail(const QString &error)
{
    m_error = error;
    qCWarning(lcExport).noquote() << error;
    return std::nullopt;
}

std::optional<Candidate> KernelExporter::resolveCandidate(const QString &sessionId,
                                                          const QString &candidateId)
{
    const auto session = m_store.session(sessionId);
    const QString where = session ? describe(*session) : QStringLiteral("session %1").arg(sessionId);
    if (auto exact = m_store.candidate(candidateId)) {
        if (exact->sessionId == sessionId)
            return exact;
        fail(QStringLiteral("candidate %1 belongs to session %2, not to %3")
                 .arg(candidateId, shortId(exact->sessionId), where));
        return std::nullopt;
    }
    // Ids are UUIDs; like `git`, a unique prefix is enough, but only within the session asked about.
    QList<Candidate> matches;
    if (!candidateId.isEmpty())
        for (const Candidate &c : m_store.candidates(sessionId))
            if (c.id.startsWith(candidateId, Qt::CaseInsensitive))
                matches.append(c);
    if (matches.size() == 1)
        return matches.first();
    if (matches.isEmpty())
        fail(QStringLiteral("no candidate '%1' in %2; 'accelopt sessions show %3' names the best one")
                 .arg(candidateId, where, shortId(sessionId)));
    else
        fail(QStringLiteral("'%1' matches %2 candidates of %3; give more of the id")
                 .arg(candidateId, QString::number(matches.size()), where));
    return std::nullopt;
}

std::optional<KernelExporter::Prepared>
KernelExporter::prepare(const QString &sessionId, const QString &candidateId, const QDateTime &exportedAt)
{
    m_error.clear();
    Prepared p;
    p.exportedAt = exportedAt.isValid() ? exportedAt.toUTC() : QDateTime::currentDateTimeUtc();

    QString sessionKey = sessionId;
    if (sessionKey.isEmpty()) {
        const auto owner = m_store.candidate(candidateId);
        if (!owner)
            return fail(candidateId.isEmpty()
                            ? QStringLiteral("nothing to export: no session and no candidate given")
                            : QStringLiteral("no candidate '%1' in %2").arg(candidateId, m_store.path()));
        sessionKey = owner->sessionId;
    }
    const auto session = m_store.findSession(sessionKey);
    if (!session)
        return fail(m_store.lastError());
    p.session = *session;

    if (candidateId.isEmpty()) {
        const auto best = m_store.bestCandidate(session->id);
        if (!best)
            return fail(QStringLiteral("nothing to export: no candidate of %1 passed correctness yet")
                            .arg(describe(*session)));
        p.candidate = *best;
    } else {
        const auto chosen = resolveCandidate(session->id, candidateId);
        if (!chosen)
            return std::nullopt;
        p.candidate = *chosen;
    }

    const auto evaluation = m_store.evaluation(p.candidate.id);
    if (!evaluation)
        return fail(QStringLiteral("candidate %1 of %2 has not been evaluated yet, so nothing says it is "
                                   "correct or how fast it is; wait for its evaluation or export another "
                                   "candidate")
                        .arg(shortId(p.candidate.id), describe(*session)));
    if (!evaluation->ok() || !evaluation->isCorrect()) {
        const QString error = ExportFormat::firstLine(evaluation->error);
        return fail(QStringLiteral("candidate %1 of %2 did not pass correctness (status %3%4); only kernels "
                                   "that passed are exported")
                        .arg(shortId(p.candidate.id), describe(*session), evaluation->statusName(),
                             error.isEmpty() ? QString() : QStringLiteral(": ") + error));
    }
    p.evaluation = *evaluation;
    p.remeasured = m_store.evaluation(p.candidate.id, SessionStore::remeasureRun);

    p.lineage = m_store.lineage(p.candidate.id);
    const QString baselineId = !p.lineage.isEmpty() && p.lineage.first().origin == Candidate::Origin::Baseline
                                   ? p.lineage.first().id
                                   : SessionStore::baselineCandidateId(session->id);
    if (const auto baseline = m_store.evaluation(baselineId);
        baseline && baseline->ok() && baseline->isCorrect() && baseline->latencyMeanMs > 0) {
        p.baselineLatencyMs = baseline->latencyMeanMs;
        p.speedup = ExportFormat::speedupOver(baseline->latencyMeanMs, p.evaluation.latencyMeanMs);
    }
    for (const PlanRecord &plan : m_store.plans(session->id))
        p.planTitles.insert(plan.id, plan.plan.title);

    QString source = p.candidate.source;
    const QString shebang = takeShebang(source);
    p.text = shebang + header(p) + u'\n' + stripHeader(source);
    return p;
}

QString KernelExporter::header(const Prepared &p)
{
    const auto line = [](const QString &key, const QString &value) {
        return QStringLiteral("# %1 %2\n").arg(key.leftJustified(11), ExportFormat::oneLine(value));
    };
    const Evaluation &e = p.evaluation;
    QString latency = e.latencyMeanMs > 0
                          ? ExportFormat::milliseconds(*e.latencyMeanMs) + QStringLiteral(" mean")
                          : QStringLiteral("unknown");
    if (e.latencyMinMs > 0 && e.latencyMaxMs > 0)
        latency += QStringLiteral(" (min %1, max %2)")
                       .arg(ExportFormat::milliseconds(*e.latencyMinMs),
                            ExportFormat::milliseconds(*e.latencyMaxMs));
    if (!e.host.isEmpty())
        latency += QStringLiteral(" on ") + e.host;
    const QString percent = e.percentOfPeak ? ExportFormat::percent(*e.percentOfPeak)
                                            : QStringLiteral("unknown (no roofline for this task)");
    const QString speedup =
        p.speedup
            ? QStringLiteral("%1 over the session's baseline (%2)")
                  .arg(ExportFormat::speedup(*p.speedup), ExportFormat::milliseconds(*p.baselineLatencyMs))
            : QStringLiteral("unknown (the session's baseline has no correct timing)");

    QString h = headerBegin + u'\n';
    h += line(QStringLiteral("task:"), p.session.taskName);
    h += line(QStringLiteral("target:"), p.session.target);
    h += line(QStringLiteral("backend:"), p.session.backend);
    h += line(QStringLiteral("latency:"), latency);
    h += line(QStringLiteral("% of peak:"), percent);
    h += line(QStringLiteral("speedup:"), speedup);
    h += line(QStringLiteral("remeasured:"), remeasureText(p));
    h += line(QStringLiteral("candidate:"),
              QStringLiteral("%1 (%2)").arg(p.candidate.id, provenanceOf(p.candidate)));
    h += line(QStringLiteral("session:"), p.session.id);
    h += line(QStringLiteral("exported:"), p.exportedAt.toUTC().toString(Qt::ISODate));
    h += line(QStringLiteral("tool:"), QStringLiteral("AccelOpt Workbench ") + BuildInfo::appVersion());
    // One step per line, so a long lineage stays readable and each id can be looked up on its own.
    for (qsizetype i = 0; i < p.lineage.size(); ++i) {
        const Candidate &step = p.lineage.at(i);
        QString text = QStringLiteral("%1 %2").arg(step.id, provenanceOf(step));
        const QString plan = p.planTitles.value(step.planId);
        if (!plan.isEmpty())
            text += QStringLiteral(": ") + ExportFormat::oneLine(plan, 100);
        h += line(i == 0 ? QStringLiteral("lineage:") : QString(), text);
    }
    h += headerEnd + u'\n';
    return h;
}

QString KernelExporter::remeasureText(const Prepared &p)
{
    if (!p.remeasured)
        return p.candidate.origin == Candidate::Origin::Baseline
                   ? QStringLiteral("no (the session's starting kernel)")
                   : QStringLiteral("no: the session stopped before it ended; resume it to have its best "
                                    "kernel re-measured on fresh seeds");
    const Evaluation &r = *p.remeasured;
    if (Selection::failsRemeasure(r))
        return QStringLiteral("FAILED on fresh seeds at the small size (%1%2): not the session's best")
            .arg(r.ok() ? QStringLiteral("incorrect") : r.statusName(),
                 r.error.isEmpty() ? QString() : QStringLiteral(": ") + ExportFormat::firstLine(r.error));
    if (!r.ok())
        return QStringLiteral("not possible, the host failed (%1)").arg(ExportFormat::firstLine(r.error));
    return QStringLiteral("correct on fresh seeds at the small size");
}

QString KernelExporter::stripHeader(const QString &source)
{
    QString body = source;
    const QString shebang = takeShebang(body);
    if (!body.startsWith(headerBegin + u'\n') && !body.startsWith(headerBegin + QStringLiteral("\r\n")))
        return source;
    // Only a complete block of comment lines counts as our header; anything else is the user's code.
    qsizetype pos = 0;
    while (pos < body.size()) {
        const qsizetype newline = body.indexOf(u'\n', pos);
        const qsizetype end = newline < 0 ? body.size() : newline;
        QString lineText = body.mid(pos, end - pos);
        if (lineText.endsWith(u'\r'))
            lineText.chop(1);
        pos = newline < 0 ? body.size() : newline + 1;
        if (!lineText.startsWith(u'#'))
            return source;
        if (lineText == headerEnd) {
            // The blank line the export put between the header and the kernel goes with the header.
            if (body.mid(pos).startsWith(u'\n'))
                pos += 1;
            else if (body.mid(pos).startsWith(QStringLiteral("\r\n")))
                pos += 2;
            return shebang + body.mid(pos);
        }
    }
    return source;
}

QString KernelExporter::defaultFileName(const SessionRecord &session)
{
    QString stem;
    for (const QChar c : session.taskName)
        stem.append(c.isLetterOrNumber() && c.unicode() < 0x80 ? c.toLower() : QChar(u'_'));
    if (stem.isEmpty())
        stem = QStringLiteral("kernel");
    else if (stem.front().isDigit())
        stem.prepend(QStringLiteral("kernel_")); // a module name cannot start with a digit
    return QStringLiteral("%1_%2.py").arg(stem, shortId(session.id));
}

QString KernelExporter::write(const Prepared &prepared, const QString &folder, const QString &fileName,
                              bool overwrite)
{
    m_error.clear();
    const QString name = fileName.isEmpty() ? defaultFileName(prepared.session) : fileName;
    const QString path = QDir(folder).filePath(name);
    QString error;
    if (!ExportFile::ensureFolder(folder, error) ||
        !ExportFile::write(path, prepared.text.toUtf8(), overwrite, error)) {
        fail(error);
        return {};
    }
    qCInfo(lcExport) << "exported candidate" << prepared.candidate.id << "to" << path;
    return path;
}
