#include "store/sessionstore.h"

#include "common/datapaths.h"
#include "common/logcategories.h"
#include "model/kernelnormalizer.h"
#include "store/statement.h"
#include "store/workspaceschema.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>

namespace {
const QString candidateColumns = QStringLiteral("c.id, c.session_id, c.iteration, c.parent_id, c.plan_id, "
                                                "c.plan_index, c.sample_index, c.fix_round, c.origin, "
                                                "c.source, c.source_hash");

const QString evaluationColumns = QStringLiteral(
    "host, status, error, correct, l2_rel_err, max_abs_err, latency_mean_ms, latency_min_ms, "
    "latency_max_ms, latency_p50_ms, rel_spread, peak_ms, percent_of_peak, bound, metrics_json, "
    "raw_json, wall_s, attempts, reused_from");

// Not a re-measured failure, of this kernel or of another with the same normalized source
// (Selection::failsRemeasure: a run that says something about the kernel and is not correct). `c` is the
// candidate, `:s` the session.
// The partial index evaluations_remeasured (schema version 5) keeps this to the session's few
// re-measurements.
const QString notDemoted = QStringLiteral(
    "NOT EXISTS (SELECT 1 FROM evaluations r JOIN candidates d ON d.id = r.candidate_id WHERE r.run_index = "
    "1 "
    "AND d.session_id = c.session_id AND (d.id = c.id OR (c.source_hash != '' AND d.source_hash = "
    "c.source_hash)) AND r.status != 'infra_error' AND NOT (r.status = 'ok' AND r.correct = 1))");

QString now()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

QDateTime timeFrom(const QVariant &v)
{
    return QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
}

QString compactJson(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QJsonObject objectFrom(const QVariant &v)
{
    return QJsonDocument::fromJson(v.toString().toUtf8()).object();
}

std::optional<double> numberOrUnknown(const QVariant &v)
{
    return v.isNull() ? std::nullopt : std::optional<double>(v.toDouble());
}

// A row of evaluationColumns.
Evaluation evaluationFrom(const Statement &q, const QString &candidateId)
{
    Evaluation e;
    e.id = candidateId;
    e.host = q.value(0).toString();
    const QString status = q.value(1).toString();
    e.error = q.value(2).toString();
    if (const std::optional<EvalStatus> known = EvalStatuses::fromName(status)) {
        e.status = *known;
    } else {
        e.status = EvalStatus::InfraError;
        e.error = QStringLiteral("stored with an unknown status '%1': %2").arg(status, e.error);
    }
    if (!q.value(3).isNull())
        e.correct = q.value(3).toInt() == 1;
    e.l2RelErr = numberOrUnknown(q.value(4));
    e.maxAbsErr = numberOrUnknown(q.value(5));
    e.latencyMeanMs = numberOrUnknown(q.value(6));
    e.latencyMinMs = numberOrUnknown(q.value(7));
    e.latencyMaxMs = numberOrUnknown(q.value(8));
    e.latencyP50Ms = numberOrUnknown(q.value(9));
    e.relSpread = numberOrUnknown(q.value(10));
    e.peakMs = numberOrUnknown(q.value(11));
    e.percentOfPeak = numberOrUnknown(q.value(12));
    e.bound = q.value(13).toString();
    e.metrics = objectFrom(q.value(14));
    e.raw = objectFrom(q.value(15));
    e.profile = Evaluation::profileFrom(e.raw);
    e.wallSeconds = numberOrUnknown(q.value(16));
    e.attempts = q.value(17).toInt();
    e.reusedFrom = q.value(18).toString();
    return e;
}

Candidate candidateFrom(const Statement &q)
{
    Candidate c;
    c.id = q.value(0).toString();
    c.sessionId = q.value(1).toString();
    c.iteration = q.value(2).toInt();
    c.parentId = q.value(3).toString();
    c.planId = q.value(4).toString();
    c.planIndex = q.value(5).toInt();
    c.sampleIndex = q.value(6).toInt();
    c.fixRound = q.value(7).toInt();
    Candidate::originFromName(q.value(8).toString(), c.origin);
    c.source = q.value(9).toString();
    c.sourceHash = q.value(10).toString();
    return c;
}

SessionRecord sessionFrom(const Statement &q)
{
    SessionRecord s;
    s.id = q.value(0).toString();
    s.taskName = q.value(1).toString();
    s.task = objectFrom(q.value(2));
    s.target = q.value(3).toString();
    s.backend = q.value(4).toString();
    s.host = q.value(5).toString();
    s.config = objectFrom(q.value(6));
    SessionRecord::statusFromName(q.value(7).toString(), s.status);
    s.created = timeFrom(q.value(8));
    s.updated = timeFrom(q.value(9));
    s.currentIteration = q.value(10).toInt();
    s.currentStep = q.value(11).toString();
    s.run = objectFrom(q.value(12));
    s.stopReason = q.value(13).toString();
    return s;
}

const QString sessionColumns =
    QStringLiteral("id, task_name, task_json, target, backend, host, config_json, status, "
                   "created_at, updated_at, current_iteration, current_step, run_json, stop_reason");

// Name-based UUIDs in a namespace of our own: the same natural key gives the same id in every run.
QString derivedId(const QStringList &parts)
{
    static const QUuid ns(QStringLiteral("6f1d0c3e-2b7a-4c55-9f43-0d1c7a5e9b21"));
    return QUuid::createUuidV5(ns, parts.join(QChar(0x1f))).toString(QUuid::WithoutBraces);
}
} // namespace

QString SessionStore::defaultPath()
{
    const QString fromEnv = qEnvironmentVariable("ACCELOPT_WORKSPACE_DB");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return DataPaths::userDataFile(QStringLiteral("workspace.sqlite"));
}

SessionStore::SessionStore(const QString &path) : m_path(path), m_db(WorkspaceSchema::schema()) {}

SessionStore::~SessionStore() = default;

bool SessionStore::open()
{
    QString error;
    if (m_db.open(m_path, error))
        return true;
    return failToOpen(error);
}

bool SessionStore::fail(const QString &error) const
{
    m_error = m_db.explain(error);
    // A read-only file is the user's condition, told by the caller: not a fault to warn of.
    if (m_error != error)
        qCInfo(lcStore).noquote() << m_error;
    else
        qCWarning(lcStore).noquote() << m_error;
    return false;
}

bool SessionStore::failToOpen(const QString &error) const
{
    // Only the log's: the caller says it (the CLI on stderr, the window in its own words); a warning here
    // printed every refused database twice.
    m_error = error;
    qCInfo(lcStore).noquote() << error;
    return false;
}

QString SessionStore::planId(const QString &sessionId, int iteration, const QString &parentCandidateId,
                             int planIndex)
{
    return derivedId({QStringLiteral("plan"), sessionId, QString::number(iteration), parentCandidateId,
                      QString::number(planIndex)});
}

QString SessionStore::candidateId(const QString &sessionId, int iteration, const QString &parentId,
                                  int planIndex, int sampleIndex, int fixRound)
{
    return derivedId({QStringLiteral("candidate"), sessionId, QString::number(iteration), parentId,
                      QString::number(planIndex), QString::number(sampleIndex), QString::number(fixRound)});
}

bool SessionStore::transaction(const std::function<bool()> &work)
{
    m_error.clear(); // so a failure reports its own cause, not an earlier one
    QString error;
    const bool ok = m_db.transact(
        [&](QString &workError) {
            if (work())
                return true;
            workError =
                m_error.isEmpty() ? QStringLiteral("the work inside the transaction failed") : m_error;
            return false;
        },
        error);
    return ok || fail(error);
}

bool SessionStore::touchSession(const QString &sessionId, QString &error)
{
    Statement q(m_db.connection(), QStringLiteral("UPDATE sessions SET updated_at = :now WHERE id = :id"));
    q.bind(QStringLiteral(":now"), now()).bind(QStringLiteral(":id"), sessionId);
    if (q.exec())
        return true;
    error = q.error();
    return false;
}

bool SessionStore::createSession(SessionRecord &session)
{
    if (session.id.isEmpty())
        session.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (!session.created.isValid())
        session.created = QDateTime::currentDateTimeUtc();
    if (!session.updated.isValid())
        session.updated = session.created;
    Statement q(m_db.connection(),
                QStringLiteral(
                    "INSERT OR IGNORE INTO sessions (%1) VALUES (:id, :task_name, :task_json, :target, "
                    ":backend, :host, :config, :status, :created, :updated, :iteration, :step, :run, :stop)")
                    .arg(sessionColumns));
    q.bind(QStringLiteral(":id"), session.id)
        .bind(QStringLiteral(":task_name"), session.taskName)
        .bind(QStringLiteral(":task_json"), compactJson(session.task))
        .bind(QStringLiteral(":target"), session.target)
        .bind(QStringLiteral(":backend"), session.backend)
        .bind(QStringLiteral(":host"), session.host)
        .bind(QStringLiteral(":config"), compactJson(session.config))
        .bind(QStringLiteral(":status"), SessionRecord::statusName(session.status))
        .bind(QStringLiteral(":created"), session.created.toUTC().toString(Qt::ISODateWithMs))
        .bind(QStringLiteral(":updated"), session.updated.toUTC().toString(Qt::ISODateWithMs))
        .bind(QStringLiteral(":iteration"), session.currentIteration)
        .bind(QStringLiteral(":step"), session.currentStep)
        .bind(QStringLiteral(":run"), compactJson(session.run))
        .bind(QStringLiteral(":stop"), session.stopReason);
    return q.exec() || fail(q.error());
}

bool SessionStore::setStatus(const QString &sessionId, SessionRecord::Status status,
                             const QString &stopReason)
{
    Statement q(m_db.connection(),
                QStringLiteral("UPDATE sessions SET status = :status, stop_reason = :reason, "
                               "updated_at = :now WHERE id = :id"));
    q.bind(QStringLiteral(":status"), SessionRecord::statusName(status))
        .bind(QStringLiteral(":reason"), stopReason)
        .bind(QStringLiteral(":now"), now())
        .bind(QStringLiteral(":id"), sessionId);
    if (!q.exec())
        return fail(q.error());
    return q.rowsAffected() > 0 || fail(QStringLiteral("no session %1 in %2").arg(sessionId, m_path));
}

bool SessionStore::setConfig(const QString &sessionId, const QJsonObject &config)
{
    Statement q(
        m_db.connection(),
        QStringLiteral("UPDATE sessions SET config_json = :config, updated_at = :now WHERE id = :id"));
    q.bind(QStringLiteral(":config"), compactJson(config))
        .bind(QStringLiteral(":now"), now())
        .bind(QStringLiteral(":id"), sessionId);
    if (!q.exec())
        return fail(q.error());
    return q.rowsAffected() > 0 || fail(QStringLiteral("no session %1 in %2").arg(sessionId, m_path));
}

std::optional<SessionRecord> SessionStore::session(const QString &sessionId) const
{
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM sessions WHERE id = :id").arg(sessionColumns));
    q.bind(QStringLiteral(":id"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return sessionFrom(q);
}

QList<SessionRecord> SessionStore::sessions() const
{
    QList<SessionRecord> result;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM sessions ORDER BY created_at DESC, id").arg(sessionColumns));
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(sessionFrom(q));
    return result;
}

QList<SessionSummary> SessionStore::sessionSummaries() const
{
    QList<SessionSummary> result;
    // "Correct" is status ok and correct = 1, as everywhere; the best is the lowest mean latency
    // (Selection::isBetterBest orders ties, which does not change the value).
    static const QString usable =
        QStringLiteral("e.status = 'ok' AND e.correct = 1 AND e.latency_mean_ms > 0");
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1, "
                               "(SELECT count(*) FROM candidates c WHERE c.session_id = s.id), "
                               "(SELECT e.latency_mean_ms FROM candidates c JOIN evaluations e ON "
                               "e.candidate_id = c.id AND e.run_index = 0 WHERE c.session_id = s.id AND "
                               "c.origin = 'baseline' AND %2), "
                               "(SELECT e.latency_mean_ms || ' ' || coalesce(e.percent_of_peak, '') FROM "
                               "candidates c JOIN evaluations e ON e.candidate_id = c.id AND e.run_index = 0 "
                               "WHERE c.session_id = s.id AND %2 AND %3 ORDER BY e.latency_mean_ms, "
                               "c.iteration, c.id LIMIT 1), "
                               "(SELECT total(cost_usd) FROM llm_calls l WHERE l.session_id = s.id), "
                               "(SELECT count(*) FROM llm_calls l WHERE l.session_id = s.id), "
                               "(SELECT count(*) FROM llm_calls l WHERE l.session_id = s.id AND "
                               "l.cost_usd IS NULL), "
                               "(SELECT coalesce(max(b.iteration), 0) FROM beams b WHERE b.session_id = s.id) "
                               "FROM sessions s ORDER BY created_at DESC, id")
                    .arg(sessionColumns, usable, notDemoted));
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    const int first = int(sessionColumns.count(u',')) + 1;
    while (q.next()) {
        SessionSummary s;
        s.session = sessionFrom(q);
        s.iterations = s.session.config.value(QStringLiteral("iterations")).toInt();
        s.candidates = q.value(first).toInt();
        if (!q.value(first + 1).isNull())
            s.baselineLatencyMs = q.value(first + 1).toDouble();
        if (!q.value(first + 2).isNull()) {
            const QStringList best = q.value(first + 2).toString().split(u' ');
            s.bestLatencyMs = best.value(0).toDouble();
            bool known = false;
            const double percent = best.value(1).toDouble(&known);
            if (known)
                s.bestPercentOfPeak = percent;
        }
        s.costUsd = q.value(first + 3).toDouble();
        s.calls = q.value(first + 4).toInt();
        s.unpricedCalls = q.value(first + 5).toInt();
        s.iterationsDone = q.value(first + 6).toInt();
        result.append(s);
    }
    return result;
}

bool SessionStore::deleteSession(const QString &sessionId)
{
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            // Plans and candidates refer to each other; clear those links first so the cascade from the
            // session can remove both tables' rows in any order.
            Statement unlinkPlans(m_db.connection(), QStringLiteral("UPDATE plans SET parent_candidate_id = "
                                                                    "NULL WHERE session_id = :s"));
            Statement unlinkCandidates(
                m_db.connection(), QStringLiteral("UPDATE candidates SET parent_id = NULL, plan_id = NULL "
                                                  "WHERE session_id = :s"));
            Statement beams(m_db.connection(), QStringLiteral("DELETE FROM beams WHERE session_id = :s"));
            Statement remove(m_db.connection(), QStringLiteral("DELETE FROM sessions WHERE id = :s"));
            for (Statement *st : {&unlinkPlans, &unlinkCandidates, &beams, &remove}) {
                st->bind(QStringLiteral(":s"), sessionId);
                if (!st->exec()) {
                    e = st->error();
                    return false;
                }
            }
            if (remove.rowsAffected() != 1) {
                e = QStringLiteral("no session '%1' in %2").arg(sessionId, m_path);
                return false;
            }
            return true;
        },
        error);
    return ok || fail(error);
}

std::optional<SessionRecord> SessionStore::findSession(const QString &prefix) const
{
    if (auto exact = session(prefix))
        return exact;
    QList<SessionRecord> matches;
    for (const SessionRecord &s : sessions())
        if (!prefix.isEmpty() && s.id.startsWith(prefix, Qt::CaseInsensitive))
            matches.append(s);
    if (matches.size() == 1)
        return matches.first();
    m_error =
        matches.isEmpty()
            ? QStringLiteral("no session '%1' in %2").arg(prefix, m_path)
            : QStringLiteral("'%1' matches %2 sessions; give more of the id").arg(prefix).arg(matches.size());
    return std::nullopt;
}

bool SessionStore::markStepCompleted(const QString &sessionId, int iteration, const QString &step)
{
    return transaction([&] {
        Statement mark(
            m_db.connection(),
            QStringLiteral(
                "INSERT OR IGNORE INTO completed_steps (session_id, iteration, step, completed_at) "
                "VALUES (:s, :i, :step, :now)"));
        mark.bind(QStringLiteral(":s"), sessionId)
            .bind(QStringLiteral(":i"), iteration)
            .bind(QStringLiteral(":step"), step)
            .bind(QStringLiteral(":now"), now());
        if (!mark.exec())
            return fail(mark.error());
        Statement where(m_db.connection(),
                        QStringLiteral("UPDATE sessions SET current_iteration = :i, current_step = :step, "
                                       "updated_at = :now WHERE id = :s AND current_iteration <= :i"));
        where.bind(QStringLiteral(":s"), sessionId)
            .bind(QStringLiteral(":i"), iteration)
            .bind(QStringLiteral(":step"), step)
            .bind(QStringLiteral(":now"), now());
        return where.exec() || fail(where.error());
    });
}

bool SessionStore::isStepCompleted(const QString &sessionId, int iteration, const QString &step) const
{
    Statement q(m_db.connection(), QStringLiteral("SELECT 1 FROM completed_steps WHERE session_id = :s AND "
                                                  "iteration = :i AND step = :step"));
    q.bind(QStringLiteral(":s"), sessionId)
        .bind(QStringLiteral(":i"), iteration)
        .bind(QStringLiteral(":step"), step);
    if (!q.exec())
        return fail(q.error());
    return q.next();
}

bool SessionStore::insertPlan(PlanRecord &plan, QString &error)
{
    if (plan.id.isEmpty())
        plan.id = planId(plan.sessionId, plan.iteration, plan.parentCandidateId, plan.planIndex);
    Statement q(
        m_db.connection(),
        QStringLiteral("INSERT OR IGNORE INTO plans (id, session_id, iteration, parent_candidate_id, "
                       "plan_index, title, steps_json, raw_text, created_at) VALUES (:id, :s, :i, :parent, "
                       ":index, :title, :steps, :raw, :now)"));
    q.bind(QStringLiteral(":id"), plan.id)
        .bind(QStringLiteral(":s"), plan.sessionId)
        .bind(QStringLiteral(":i"), plan.iteration)
        .bind(QStringLiteral(":parent"), Statement::orNull(plan.parentCandidateId))
        .bind(QStringLiteral(":index"), plan.planIndex)
        .bind(QStringLiteral(":title"), plan.plan.title)
        .bind(QStringLiteral(":steps"),
              QString::fromUtf8(
                  QJsonDocument(QJsonArray::fromStringList(plan.plan.steps)).toJson(QJsonDocument::Compact)))
        .bind(QStringLiteral(":raw"), plan.plan.text)
        .bind(QStringLiteral(":now"), now());
    if (q.exec())
        return true;
    error = q.error();
    return false;
}

bool SessionStore::addPlan(PlanRecord &plan)
{
    QList<PlanRecord> one{plan};
    const bool ok = addPlans(one);
    plan = one.first();
    return ok;
}

bool SessionStore::addPlans(QList<PlanRecord> &plans)
{
    return insertAll(plans, &SessionStore::insertPlan);
}

QList<PlanRecord> SessionStore::plans(const QString &sessionId, int iteration) const
{
    QList<PlanRecord> result;
    Statement q(m_db.connection(),
                QStringLiteral(
                    "SELECT id, session_id, iteration, parent_candidate_id, plan_index, title, steps_json, "
                    "raw_text FROM plans WHERE session_id = :s AND (:i < 0 OR iteration = :i) "
                    "ORDER BY iteration, parent_candidate_id, plan_index"));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":i"), iteration);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next()) {
        PlanRecord p;
        p.id = q.value(0).toString();
        p.sessionId = q.value(1).toString();
        p.iteration = q.value(2).toInt();
        p.parentCandidateId = q.value(3).toString();
        p.planIndex = q.value(4).toInt();
        p.plan.title = q.value(5).toString();
        for (const QJsonValue &step : QJsonDocument::fromJson(q.value(6).toString().toUtf8()).array())
            p.plan.steps.append(step.toString());
        p.plan.text = q.value(7).toString();
        result.append(p);
    }
    return result;
}

bool SessionStore::insertCandidate(Candidate &c, QString &error)
{
    if (c.id.isEmpty())
        c.id = c.origin == Candidate::Origin::Baseline ? baselineCandidateId(c.sessionId)
                                                       : candidateId(c.sessionId, c.iteration, c.parentId,
                                                                     c.planIndex, c.sampleIndex, c.fixRound);
    if (c.sourceHash.isEmpty())
        c.sourceHash = KernelNormalizer::hash(c.source);
    Statement q(
        m_db.connection(),
        QStringLiteral("INSERT OR IGNORE INTO candidates (id, session_id, iteration, parent_id, plan_id, "
                       "plan_index, sample_index, fix_round, origin, source, source_hash, created_at) VALUES "
                       "(:id, :s, :i, :parent, :plan, :pi, :si, :fix, :origin, :source, :hash, :now)"));
    q.bind(QStringLiteral(":id"), c.id)
        .bind(QStringLiteral(":s"), c.sessionId)
        .bind(QStringLiteral(":i"), c.iteration)
        .bind(QStringLiteral(":parent"), Statement::orNull(c.parentId))
        .bind(QStringLiteral(":plan"), Statement::orNull(c.planId))
        .bind(QStringLiteral(":pi"), c.planIndex)
        .bind(QStringLiteral(":si"), c.sampleIndex)
        .bind(QStringLiteral(":fix"), c.fixRound)
        .bind(QStringLiteral(":origin"), Candidate::originName(c.origin))
        .bind(QStringLiteral(":source"), c.source)
        .bind(QStringLiteral(":hash"), c.sourceHash)
        .bind(QStringLiteral(":now"), now());
    if (q.exec())
        return true;
    error = q.error();
    return false;
}

bool SessionStore::addCandidate(Candidate &candidate)
{
    QList<Candidate> one{candidate};
    const bool ok = addCandidates(one);
    candidate = one.first();
    return ok;
}

bool SessionStore::addCandidates(QList<Candidate> &candidates)
{
    return insertAll(candidates, &SessionStore::insertCandidate);
}

std::optional<Candidate> SessionStore::candidate(const QString &candidateId) const
{
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM candidates c WHERE c.id = :id").arg(candidateColumns));
    q.bind(QStringLiteral(":id"), candidateId);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return candidateFrom(q);
}

QMap<int, double> SessionStore::costByIteration(const QString &sessionId) const
{
    QMap<int, double> cost;
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT COALESCE(p.iteration, c.iteration, 0), SUM(l.cost_usd) FROM llm_calls l "
                       "LEFT JOIN plans p ON p.id = l.tag LEFT JOIN candidates c ON c.id = l.tag "
                       "WHERE l.session_id = :s AND l.cost_usd IS NOT NULL GROUP BY 1"));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return cost;
    }
    while (q.next())
        cost.insert(q.value(0).toInt(), q.value(1).toDouble());
    return cost;
}

std::optional<Candidate> SessionStore::findCandidate(const QString &prefix) const
{
    if (prefix.size() < 4 || prefix.contains(u'%') || prefix.contains(u'_')) {
        m_error =
            QStringLiteral("'%1' is not a candidate id: give at least its first 4 characters").arg(prefix);
        return std::nullopt;
    }
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM candidates c WHERE c.id LIKE :p LIMIT 2").arg(candidateColumns));
    q.bind(QStringLiteral(":p"), prefix.toLower() + u'%');
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    QList<Candidate> found;
    while (q.next())
        found.append(candidateFrom(q));
    if (found.size() == 1)
        return found.first();
    m_error = found.isEmpty()
                  ? QStringLiteral("no candidate '%1' in %2").arg(prefix, m_path)
                  : QStringLiteral("'%1' matches more than one candidate; give more of the id").arg(prefix);
    return std::nullopt;
}

QList<Candidate> SessionStore::candidates(const QString &sessionId, int iteration) const
{
    QList<Candidate> result;
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM candidates c WHERE c.session_id = :s AND (:i < 0 OR c.iteration = :i) "
                       "ORDER BY c.iteration, c.created_at, c.plan_index, c.sample_index, c.fix_round")
            .arg(candidateColumns));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":i"), iteration);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(candidateFrom(q));
    return result;
}

QList<Candidate> SessionStore::lineage(const QString &candidateId) const
{
    QList<Candidate> result;
    // The depth bound guards against a parent cycle, which the schema cannot rule out by itself.
    Statement q(
        m_db.connection(),
        QStringLiteral("WITH RECURSIVE chain(id, depth) AS (SELECT :id, 0 UNION ALL SELECT c.parent_id, "
                       "chain.depth + 1 FROM candidates c JOIN chain ON c.id = chain.id WHERE c.parent_id IS "
                       "NOT NULL AND chain.depth < 100000) SELECT %1 FROM chain JOIN candidates c ON c.id = "
                       "chain.id ORDER BY chain.depth DESC")
            .arg(candidateColumns));
    q.bind(QStringLiteral(":id"), candidateId);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(candidateFrom(q));
    return result;
}

QList<Candidate> SessionStore::children(const QString &candidateId) const
{
    QList<Candidate> result;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM candidates c WHERE c.parent_id = :id ORDER BY "
                               "c.plan_index, c.sample_index, c.fix_round")
                    .arg(candidateColumns));
    q.bind(QStringLiteral(":id"), candidateId);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(candidateFrom(q));
    return result;
}

bool SessionStore::hasSource(const QString &sessionId, const QString &sourceHash) const
{
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT 1 FROM candidates WHERE session_id = :s AND source_hash = :h LIMIT 1"));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":h"), sourceHash);
    if (!q.exec())
        return fail(q.error());
    return q.next();
}

bool SessionStore::addEvaluation(const QString &candidateId, const Evaluation &e, int runIndex)
{
    return writeEvaluation(QStringLiteral("INSERT OR IGNORE"), candidateId, e, runIndex);
}

bool SessionStore::replaceEvaluation(const QString &candidateId, const Evaluation &e, int runIndex)
{
    return writeEvaluation(QStringLiteral("INSERT OR REPLACE"), candidateId, e, runIndex);
}

bool SessionStore::writeEvaluation(const QString &verb, const QString &candidateId, const Evaluation &e,
                                   int runIndex)
{
    Statement q(
        m_db.connection(),
        verb + QStringLiteral(
                   " INTO evaluations (candidate_id, run_index, host, status, error, "
                   "correct, l2_rel_err, max_abs_err, latency_mean_ms, latency_min_ms, latency_max_ms, "
                   "latency_p50_ms, rel_spread, peak_ms, percent_of_peak, bound, metrics_json, raw_json, "
                   "wall_s, attempts, reused_from, created_at) VALUES (:c, :run, :host, :status, :error, "
                   ":correct, "
                   ":l2, :maxabs, :mean, :min, :max, :p50, :spread, :peak, :pct, :bound, :metrics, :raw, "
                   ":wall, :attempts, :reused, :now)"));
    q.bind(QStringLiteral(":c"), candidateId)
        .bind(QStringLiteral(":run"), runIndex)
        .bind(QStringLiteral(":host"), e.host)
        .bind(QStringLiteral(":status"), e.statusName())
        .bind(QStringLiteral(":error"), e.error)
        .bind(QStringLiteral(":correct"), e.correct ? QVariant(*e.correct ? 1 : 0) : QVariant())
        .bind(QStringLiteral(":l2"), Statement::orNull(e.l2RelErr))
        .bind(QStringLiteral(":maxabs"), Statement::orNull(e.maxAbsErr))
        .bind(QStringLiteral(":mean"), Statement::orNull(e.latencyMeanMs))
        .bind(QStringLiteral(":min"), Statement::orNull(e.latencyMinMs))
        .bind(QStringLiteral(":max"), Statement::orNull(e.latencyMaxMs))
        .bind(QStringLiteral(":p50"), Statement::orNull(e.latencyP50Ms))
        .bind(QStringLiteral(":spread"), Statement::orNull(e.relSpread))
        .bind(QStringLiteral(":peak"), Statement::orNull(e.peakMs))
        .bind(QStringLiteral(":pct"), Statement::orNull(e.percentOfPeak))
        .bind(QStringLiteral(":bound"), e.bound)
        .bind(QStringLiteral(":metrics"), compactJson(e.metrics))
        .bind(QStringLiteral(":raw"), compactJson(e.raw))
        .bind(QStringLiteral(":wall"), Statement::orNull(e.wallSeconds))
        .bind(QStringLiteral(":attempts"), e.attempts)
        .bind(QStringLiteral(":reused"), Statement::orNull(e.reusedFrom))
        .bind(QStringLiteral(":now"), now());
    return q.exec() || fail(q.error());
}

std::optional<Evaluation> SessionStore::evaluation(const QString &candidateId, int runIndex) const
{
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1 FROM evaluations WHERE candidate_id = :c AND run_index = :run")
                    .arg(evaluationColumns));
    q.bind(QStringLiteral(":c"), candidateId).bind(QStringLiteral(":run"), runIndex);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return evaluationFrom(q, candidateId);
}

QHash<QString, Evaluation> SessionStore::remeasurements(const QString &sessionId) const
{
    QHash<QString, Evaluation> result;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT %1, c.id FROM evaluations JOIN candidates c ON c.id = candidate_id "
                               "WHERE c.session_id = :s AND run_index = :run")
                    .arg(evaluationColumns));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":run"), remeasureRun);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    const int idColumn = int(evaluationColumns.count(u',')) + 1;
    while (q.next()) {
        const QString id = q.value(idColumn).toString();
        result.insert(id, evaluationFrom(q, id));
    }
    return result;
}

std::optional<Candidate> SessionStore::bestCandidate(const QString &sessionId) const
{
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT %1 FROM candidates c JOIN evaluations e ON e.candidate_id = c.id AND "
                       "e.run_index = 0 WHERE c.session_id = :s AND e.status = 'ok' AND e.correct = 1 AND "
                       "e.latency_mean_ms IS NOT NULL AND %2 ORDER BY e.latency_mean_ms, c.iteration, c.id "
                       "LIMIT 1")
            .arg(candidateColumns, notDemoted));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    return candidateFrom(q);
}

bool SessionStore::setBeam(const QString &sessionId, int iteration, const QStringList &candidateIds)
{
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            Statement clear(m_db.connection(),
                            QStringLiteral("DELETE FROM beams WHERE session_id = :s AND iteration = :i"));
            clear.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":i"), iteration);
            if (!clear.exec()) {
                e = clear.error();
                return false;
            }
            for (qsizetype pos = 0; pos < candidateIds.size(); ++pos) {
                Statement add(m_db.connection(),
                              QStringLiteral("INSERT INTO beams (session_id, iteration, position, "
                                             "candidate_id) VALUES (:s, :i, :p, :c)"));
                add.bind(QStringLiteral(":s"), sessionId)
                    .bind(QStringLiteral(":i"), iteration)
                    .bind(QStringLiteral(":p"), static_cast<int>(pos))
                    .bind(QStringLiteral(":c"), candidateIds.at(pos));
                if (!add.exec()) {
                    e = add.error();
                    return false;
                }
            }
            return touchSession(sessionId, e);
        },
        error);
    return ok || fail(error);
}

QStringList SessionStore::beam(const QString &sessionId, int iteration) const
{
    QStringList ids;
    Statement q(m_db.connection(), QStringLiteral("SELECT candidate_id FROM beams WHERE session_id = :s AND "
                                                  "iteration = :i ORDER BY position"));
    q.bind(QStringLiteral(":s"), sessionId).bind(QStringLiteral(":i"), iteration);
    if (!q.exec()) {
        fail(q.error());
        return ids;
    }
    while (q.next())
        ids.append(q.value(0).toString());
    return ids;
}

void SessionStore::record(const LlmCallRecord &call)
{
    recordLlmCall(m_activeSession, call);
}

bool SessionStore::recordLlmCall(const QString &sessionId, const LlmCallRecord &call)
{
    QJsonArray messages;
    for (const ChatMessage &m : call.messages)
        messages.append(
            QJsonObject{{QStringLiteral("role"), m.role}, {QStringLiteral("content"), m.content}});
    Statement q(
        m_db.connection(),
        QStringLiteral(
            "INSERT INTO llm_calls (session_id, call_id, role, model, endpoint, tag, request_json, "
            "reply, reasoning, finish_reason, prompt_tokens, completion_tokens, latency_ms, attempts, "
            "cost_usd, error, started_at, created_at) VALUES (:s, :call, :role, :model, :endpoint, "
            ":tag, :request, :reply, :reasoning, :finish, :pt, :ct, :latency, :attempts, :cost, "
            ":error, :started, :now)"));
    q.bind(QStringLiteral(":s"), Statement::orNull(sessionId))
        .bind(QStringLiteral(":call"), static_cast<qint64>(call.callId))
        .bind(QStringLiteral(":role"), call.role)
        .bind(QStringLiteral(":model"), call.model)
        .bind(QStringLiteral(":endpoint"), call.endpoint)
        .bind(QStringLiteral(":tag"), call.tag)
        .bind(QStringLiteral(":request"),
              QString::fromUtf8(QJsonDocument(messages).toJson(QJsonDocument::Compact)))
        .bind(QStringLiteral(":reply"), call.reply)
        .bind(QStringLiteral(":reasoning"), call.reasoning)
        .bind(QStringLiteral(":finish"), call.finishReason)
        .bind(QStringLiteral(":pt"), call.usage ? QVariant(call.usage->inputTokens) : QVariant())
        .bind(QStringLiteral(":ct"), call.usage ? QVariant(call.usage->outputTokens) : QVariant())
        .bind(QStringLiteral(":latency"), call.latencyMs)
        .bind(QStringLiteral(":attempts"), call.attempts)
        .bind(QStringLiteral(":cost"), Statement::orNull(call.costUsd))
        .bind(QStringLiteral(":error"), call.error)
        .bind(QStringLiteral(":started"), call.startedUtc.isValid()
                                              ? QVariant(call.startedUtc.toUTC().toString(Qt::ISODateWithMs))
                                              : QVariant())
        .bind(QStringLiteral(":now"), now());
    return q.exec() || fail(q.error());
}

std::optional<LlmCallRecord> SessionStore::recordedCall(const QString &sessionId, const QString &role,
                                                        const QString &tag) const
{
    Statement q(
        m_db.connection(),
        QStringLiteral("SELECT call_id, model, endpoint, reply, reasoning, finish_reason, prompt_tokens, "
                       "completion_tokens, latency_ms, attempts, cost_usd, error FROM llm_calls WHERE "
                       "session_id = :s AND role = :role AND tag = :tag AND error = '' "
                       "ORDER BY id DESC LIMIT 1"));
    q.bind(QStringLiteral(":s"), sessionId)
        .bind(QStringLiteral(":role"), role)
        .bind(QStringLiteral(":tag"), tag);
    if (!q.exec()) {
        fail(q.error());
        return std::nullopt;
    }
    if (!q.next())
        return std::nullopt;
    LlmCallRecord r;
    r.callId = q.value(0).toULongLong();
    r.role = role;
    r.tag = tag;
    r.model = q.value(1).toString();
    r.endpoint = q.value(2).toString();
    r.reply = q.value(3).toString();
    r.reasoning = q.value(4).toString();
    r.finishReason = q.value(5).toString();
    if (!q.value(6).isNull() && !q.value(7).isNull())
        r.usage = TokenUsage{q.value(6).toLongLong(), q.value(7).toLongLong()};
    r.latencyMs = q.value(8).toLongLong();
    r.attempts = q.value(9).toInt();
    if (!q.value(10).isNull())
        r.costUsd = q.value(10).toDouble();
    r.error = q.value(11).toString();
    return r;
}

SessionStore::CostTotals SessionStore::costTotals(const QString &sessionId) const
{
    CostTotals t;
    Statement q(
        m_db.connection(),
        QStringLiteral(
            "SELECT role, count(*), sum(error <> ''), total(prompt_tokens), total(completion_tokens), "
            "sum(prompt_tokens IS NULL), total(cost_usd), sum(cost_usd IS NULL) FROM llm_calls "
            "WHERE (:s = '' OR session_id = :s) GROUP BY role"));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return t;
    }
    while (q.next()) {
        t.calls += q.value(1).toInt();
        t.failedCalls += q.value(2).toInt();
        t.promptTokens += q.value(3).toLongLong();
        t.completionTokens += q.value(4).toLongLong();
        t.callsWithoutTokens += q.value(5).toInt();
        t.costUsd += q.value(6).toDouble();
        t.callsWithoutCost += q.value(7).toInt();
        const QString role = q.value(0).toString();
        t.costByRole.insert(role, q.value(6).toDouble());
        t.callsByRole.insert(role, q.value(1).toInt());
        t.callsWithoutCostByRole.insert(role, q.value(7).toInt());
    }
    return t;
}

QList<SessionStore::IterationSummary> SessionStore::iterationSummaries(const QString &sessionId) const
{
    QList<IterationSummary> result;
    Statement counts(
        m_db.connection(),
        QStringLiteral("SELECT c.iteration, count(*), sum(e.status = 'ok' AND e.correct = 1) FROM "
                       "candidates c LEFT JOIN evaluations e ON e.candidate_id = c.id AND e.run_index = 0 "
                       "WHERE c.session_id = :s GROUP BY c.iteration ORDER BY c.iteration"));
    counts.bind(QStringLiteral(":s"), sessionId);
    if (!counts.exec()) {
        fail(counts.error());
        return result;
    }
    while (counts.next()) {
        IterationSummary s;
        s.iteration = counts.value(0).toInt();
        s.candidates = counts.value(1).toInt();
        s.correct = counts.value(2).toInt();
        result.append(s);
    }
    Statement best(
        m_db.connection(),
        QStringLiteral("SELECT c.iteration, c.id, e.latency_mean_ms, e.percent_of_peak FROM candidates c "
                       "JOIN evaluations e ON e.candidate_id = c.id AND e.run_index = 0 WHERE c.session_id "
                       "= :s AND e.status = 'ok' AND e.correct = 1 AND e.latency_mean_ms IS NOT NULL AND %1 "
                       "ORDER BY c.iteration, e.latency_mean_ms, c.id")
            .arg(notDemoted));
    best.bind(QStringLiteral(":s"), sessionId);
    if (!best.exec()) {
        fail(best.error());
        return result;
    }
    while (best.next()) {
        for (IterationSummary &s : result) {
            if (s.iteration != best.value(0).toInt() || s.bestLatencyMs)
                continue;
            s.bestCandidateId = best.value(1).toString();
            s.bestLatencyMs = best.value(2).toDouble();
            if (!best.value(3).isNull())
                s.bestPercentOfPeak = best.value(3).toDouble();
        }
    }
    return result;
}

QMap<QString, int> SessionStore::candidateCountsByStatus(const QString &sessionId) const
{
    QMap<QString, int> counts;
    Statement q(m_db.connection(),
                QStringLiteral(
                    "SELECT coalesce(e.status, 'pending'), count(*) FROM candidates c LEFT JOIN evaluations "
                    "e ON e.candidate_id = c.id AND e.run_index = 0 WHERE c.session_id = :s GROUP BY 1"));
    q.bind(QStringLiteral(":s"), sessionId);
    if (!q.exec()) {
        fail(q.error());
        return counts;
    }
    while (q.next())
        counts.insert(q.value(0).toString(), q.value(1).toInt());
    return counts;
}
