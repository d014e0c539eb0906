#include "memory/experiencestore.h"

#include "common/datapaths.h"
#include "common/logcategories.h"
#include "memory/experiencebrowser.h"
#include "memory/experiencejson.h"
#include "memory/ftsquery.h"
#include "memory/memoryschema.h"
#include "memory/retrievalcandidates.h"
#include "memory/retrievalpolicy.h"
#include "memory/termrarity.h"
#include "store/statement.h"

#include <QDir>
#include <QHash>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSqlQuery>

namespace {
const QString columns =
    QStringLiteral("e.id, e.task, e.target, e.speedup, e.title, e.lesson, e.snippet_before, e.snippet_after, "
                   "e.slow_candidate_id, "
                   "e.fast_candidate_id, e.slow_hash, e.fast_hash, e.session_id, e.pinned, e.created_at, "
                   "e.updated_at, e.shown, e.decided, e.faster, "
                   "e.measured_on");
const QString bm25 = MemorySchema::bm25();

QString iso(const QDateTime &t)
{
    return t.toUTC().toString(Qt::ISODateWithMs);
}

const QString insertSql = QStringLiteral(
    "INSERT INTO experiences (id, kind, task, target, speedup, title, lesson, snippet_before, snippet_after, "
    "slow_candidate_id, fast_candidate_id, slow_hash, fast_hash, session_id, pinned, created_at, updated_at, "
    "measured_on) "
    "VALUES (:id, :kind, :task, :target, :speedup, :title, :lesson, :before, :after, :slow, :fast, "
    ":slowhash, "
    ":fasthash, :session, :pinned, :created, :updated, :measuredon)");

// The duplicate rule as two lookups that the schema's indexes answer (an OR of both in one query defeats
// them), prepared once so an import reuses them for every entry.
class DuplicateLookup
{
public:
    explicit DuplicateLookup(const QSqlDatabase &db)
        : m_pair(db, QStringLiteral("SELECT 1 FROM experiences WHERE task = :task AND slow_hash = :sh AND "
                                    "fast_hash = :fh LIMIT 1")),
          m_text(db, QStringLiteral("SELECT 1 FROM experiences WHERE task = :task AND title = :title AND "
                                    "lesson = :lesson LIMIT 1"))
    {
    }

    bool find(const ExperienceRecord &r, bool &duplicate, QString &error)
    {
        duplicate = false;
        if (!r.slowHash.isEmpty() && !r.fastHash.isEmpty()) {
            m_pair.bind(QStringLiteral(":task"), r.task)
                .bind(QStringLiteral(":sh"), r.slowHash)
                .bind(QStringLiteral(":fh"), r.fastHash);
            if (!m_pair.exec()) {
                error = m_pair.error();
                return false;
            }
            duplicate = m_pair.next();
            if (duplicate)
                return true;
        }
        m_text.bind(QStringLiteral(":task"), r.task)
            .bind(QStringLiteral(":title"), r.experience.title)
            .bind(QStringLiteral(":lesson"), r.experience.lesson);
        if (!m_text.exec()) {
            error = m_text.error();
            return false;
        }
        duplicate = m_text.next();
        return true;
    }

private:
    Statement m_pair;
    Statement m_text;
};

ExperienceRecord recordFrom(const Statement &q)
{
    ExperienceRecord r;
    r.id = q.value(0).toLongLong();
    r.task = q.value(1).toString();
    r.target = q.value(2).toString();
    r.experience.speedup = q.value(3).toDouble();
    r.experience.title = q.value(4).toString();
    r.experience.lesson = q.value(5).toString();
    r.experience.snippetBefore = q.value(6).toString();
    r.experience.snippetAfter = q.value(7).toString();
    r.slowCandidateId = q.value(8).toString();
    r.fastCandidateId = q.value(9).toString();
    r.slowHash = q.value(10).toString();
    r.fastHash = q.value(11).toString();
    r.sessionId = q.value(12).toString();
    r.pinned = q.value(13).toBool();
    r.created = QDateTime::fromString(q.value(14).toString(), Qt::ISODateWithMs);
    r.updated = QDateTime::fromString(q.value(15).toString(), Qt::ISODateWithMs);
    r.shown = q.value(16).toInt();
    r.decided = q.value(17).toInt();
    r.faster = q.value(18).toInt();
    r.measuredOn = q.value(19).toString();
    return r;
}
} // namespace

QString ExperienceStore::defaultPath()
{
    const QString fromEnv = qEnvironmentVariable("ACCELOPT_MEMORY_DB");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return DataPaths::userDataFile(QStringLiteral("memory.sqlite"));
}

ExperienceStore::ExperienceStore(const QString &path)
    : m_path(path), m_db(MemorySchema::schema()), m_rarity(std::make_unique<TermRarity>())
{
}

ExperienceStore::~ExperienceStore() = default;

bool ExperienceStore::open()
{
    QString error;
    // In memory: the statement journal every insert opens inside a transaction (a row, its indexes and the
    // full-text index written by a trigger) and the browser's lists of ids. On disk the statement journals
    // cost an import of 100,000 experiences a third of its time. Set before any temporary table exists, as
    // changing it later drops them.
    return (m_db.open(m_path, error) && m_db.execute(QStringLiteral("PRAGMA temp_store = MEMORY"), error)) ||
           failToOpen(error);
}

bool ExperienceStore::fail(const QString &error) const
{
    m_error = m_db.explain(error);
    // A read-only file is the user's condition, told by the caller: not a fault to warn of.
    if (m_error != error)
        qCInfo(lcMemory).noquote() << m_error;
    else
        qCWarning(lcMemory).noquote() << m_error;
    return false;
}

bool ExperienceStore::failToOpen(const QString &error) const
{
    // Only the log's: the caller says it (the CLI on stderr, the window in its own words); a warning here
    // printed every refused database twice.
    m_error = error;
    qCInfo(lcMemory).noquote() << error;
    return false;
}

bool ExperienceStore::insert(Statement &q, ExperienceRecord &r, QString &error)
{
    if (r.task.trimmed().isEmpty() || r.experience.title.trimmed().isEmpty() ||
        r.experience.lesson.trimmed().isEmpty() || !(r.experience.speedup > 0)) {
        error = QStringLiteral("an experience needs a task, a title, a lesson and a positive speedup");
        return false;
    }
    if (const QString tooLong = ExperienceJson::oversize(r); !tooLong.isEmpty()) {
        error = QStringLiteral("experience \"%1\": %2").arg(r.experience.title.left(80), tooLong);
        return false;
    }
    if (!r.created.isValid())
        r.created = QDateTime::currentDateTimeUtc();
    if (!r.updated.isValid())
        r.updated = r.created;
    // A NULL id lets SQLite choose; restore() keeps the one the experience had, so undo gives it back as
    // it was.
    q.bind(QStringLiteral(":id"), r.id > 0 ? QVariant(r.id) : QVariant())
        .bind(QStringLiteral(":kind"), r.kindName())
        .bind(QStringLiteral(":task"), r.task)
        .bind(QStringLiteral(":target"), r.target)
        .bind(QStringLiteral(":speedup"), r.experience.speedup)
        .bind(QStringLiteral(":title"), r.experience.title)
        .bind(QStringLiteral(":lesson"), r.experience.lesson)
        .bind(QStringLiteral(":before"), r.experience.snippetBefore)
        .bind(QStringLiteral(":after"), r.experience.snippetAfter)
        .bind(QStringLiteral(":slow"), r.slowCandidateId)
        .bind(QStringLiteral(":fast"), r.fastCandidateId)
        .bind(QStringLiteral(":slowhash"), r.slowHash)
        .bind(QStringLiteral(":fasthash"), r.fastHash)
        .bind(QStringLiteral(":session"), r.sessionId)
        .bind(QStringLiteral(":measuredon"), r.measuredOn)
        .bind(QStringLiteral(":pinned"), r.pinned ? 1 : 0)
        .bind(QStringLiteral(":created"), iso(r.created))
        .bind(QStringLiteral(":updated"), iso(r.updated));
    if (!q.exec()) {
        error = q.error();
        return false;
    }
    r.id = q.query().lastInsertId().toLongLong();
    return true;
}

bool ExperienceStore::add(ExperienceRecord &record)
{
    QString error;
    // One transaction so the row and its index entry (written by the trigger) land together.
    return m_db.transact(
               [&](QString &e) {
                   // A new experience gets a new id, even when copied from one that has an id.
                   record.id = 0;
                   Statement q(m_db.connection(), insertSql);
                   return insert(q, record, e);
               },
               error) ||
           fail(error);
}

bool ExperienceStore::contains(const ExperienceRecord &record) const
{
    bool duplicate = false;
    QString error;
    if (!isDuplicate(record, duplicate, error))
        return fail(error);
    return duplicate;
}

QList<ExperienceRecord> ExperienceStore::select(const QString &where,
                                                const QList<QPair<QString, QVariant>> &binds) const
{
    QList<ExperienceRecord> result;
    Statement q(m_db.connection(), QStringLiteral("SELECT %1 FROM experiences e %2").arg(columns, where));
    for (const auto &b : binds)
        q.bind(b.first, b.second);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next())
        result.append(recordFrom(q));
    return result;
}

std::optional<ExperienceRecord> ExperienceStore::forPair(const QString &hashA, const QString &hashB) const
{
    if (hashA.isEmpty() || hashB.isEmpty())
        return std::nullopt;
    // The pinned and newest first: what the user curated wins over an older duplicate.
    const QList<ExperienceRecord> found =
        select(QStringLiteral("WHERE (e.slow_hash = :a AND e.fast_hash = :b) OR (e.slow_hash = :b AND "
                              "e.fast_hash = :a) ORDER BY e.pinned DESC, e.updated_at DESC LIMIT 1"),
               {{QStringLiteral(":a"), hashA}, {QStringLiteral(":b"), hashB}});
    if (found.isEmpty())
        return std::nullopt;
    return found.first();
}

std::optional<ExperiencePage> ExperienceStore::page(const MemoryFilter &filter, const ExperienceSort &sort,
                                                    int offset, int limit)
{
    if (!m_db.isOpen()) {
        fail(QStringLiteral("the memory is not open"));
        return std::nullopt;
    }
    if (!m_browser)
        m_browser = std::make_unique<ExperienceBrowser>(m_db);
    ExperiencePage out;
    QString error;
    if (!m_browser->page(filter, sort, offset, limit, out, error)) {
        fail(error);
        return std::nullopt;
    }
    return out;
}

int ExperienceStore::rowOf(const MemoryFilter &filter, const ExperienceSort &sort, qint64 id)
{
    if (!m_db.isOpen()) {
        fail(QStringLiteral("the memory is not open"));
        return -1;
    }
    if (!m_browser)
        m_browser = std::make_unique<ExperienceBrowser>(m_db);
    QString error;
    const int row = m_browser->rowOf(filter, sort, id, error);
    if (!error.isEmpty())
        fail(error);
    return row;
}

std::optional<ExperienceRecord> ExperienceStore::get(qint64 id) const
{
    const QList<ExperienceRecord> rows =
        select(QStringLiteral("WHERE e.id = :id"), {{QStringLiteral(":id"), id}});
    if (rows.isEmpty())
        return std::nullopt;
    return rows.first();
}

QList<ExperienceRecord> ExperienceStore::list(const QString &task) const
{
    return select(
        QStringLiteral(
            "WHERE (:task = '' OR e.task = :task) ORDER BY e.pinned DESC, e.updated_at DESC, e.id DESC"),
        {{QStringLiteral(":task"), task}});
}

int ExperienceStore::count() const
{
    Statement q(m_db.connection(), QStringLiteral("SELECT count(*) FROM experiences"));
    if (!q.exec() || !q.next()) {
        fail(q.error());
        return 0;
    }
    return q.value(0).toInt();
}

QStringList ExperienceStore::distinct(Field field) const
{
    const QString column = field == Field::Task     ? QStringLiteral("task")
                           : field == Field::Target ? QStringLiteral("target")
                                                    : QStringLiteral("session_id");
    QStringList values;
    // Each index probe finds the next value, instead of reading every row.
    Statement q(m_db.connection(),
                QStringLiteral("WITH RECURSIVE v(x) AS (SELECT min(%1) FROM experiences WHERE %1 <> '' UNION ALL "
                               "SELECT (SELECT min(%1) FROM experiences WHERE %1 > x) FROM v WHERE x IS NOT "
                               "NULL) SELECT x FROM v WHERE x IS NOT NULL")
                    .arg(column));
    if (!q.exec()) {
        fail(q.error());
        return values;
    }
    while (q.next())
        values.append(q.value(0).toString());
    return values;
}

QList<ExperienceRecord> ExperienceStore::search(const QString &userText, int limit) const
{
    const QString match = FtsQuery::allWords(userText);
    if (match.isEmpty())
        return list().mid(0, limit);
    return select(
        QStringLiteral("JOIN (SELECT rowid AS id, %1 AS score FROM experiences_fts WHERE experiences_fts "
                       "MATCH :match) m ON m.id = e.id ORDER BY m.score, e.id LIMIT :limit")
            .arg(bm25),
        {{QStringLiteral(":match"), match}, {QStringLiteral(":limit"), limit}});
}

QList<ExperienceRecord> ExperienceStore::retrieve(const QString &task, const QString &target,
                                                  const QString &queryText, int limit) const
{
    QStringList words;
    QString error;
    if (!m_rarity->distinctive(m_db.connection(), FtsQuery::distinctWords(queryText), words, error)) {
        fail(error);
        return {};
    }
    QList<RetrievalPolicy::Entry> entries;
    if (!RetrievalCandidates::read(m_db.connection(), task, target, FtsQuery::anyOf(words), limit, entries,
                                   error)) {
        fail(error);
        return {};
    }
    const QList<qint64> ids = RetrievalPolicy::choose(entries, limit);
    if (ids.isEmpty())
        return {};
    QStringList idList;
    for (qint64 id : ids)
        idList.append(QString::number(id));
    QHash<qint64, ExperienceRecord> byId;
    for (const ExperienceRecord &r : select(QStringLiteral("WHERE e.id IN (%1)").arg(idList.join(u',')), {}))
        byId.insert(r.id, r);
    QList<ExperienceRecord> chosen;
    for (qint64 id : ids)
        chosen.append(byId.value(id));
    return chosen;
}

void ExperienceStore::prepareRetrieval(const QString &queryText) const
{
    QStringList ignored;
    QString error;
    if (!m_rarity->distinctive(m_db.connection(), FtsQuery::distinctWords(queryText), ignored, error))
        fail(error);
}

bool ExperienceStore::recordRetrieval(const QString &sessionId, int iteration, const QString &planId,
                                      const QList<qint64> &experienceIds)
{
    if (experienceIds.isEmpty())
        return true;
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            // OR IGNORE: a resumed search asks for the same plan again; it was shown once.
            Statement q(m_db.connection(),
                        QStringLiteral("INSERT OR IGNORE INTO retrievals (experience_id, plan_id, session_id, "
                                       "iteration, rank, retrieved_at) VALUES (:e, :plan, :session, :it, "
                                       ":rank, :now)"));
            const QString now = iso(QDateTime::currentDateTimeUtc());
            for (qsizetype i = 0; i < experienceIds.size(); ++i) {
                q.bind(QStringLiteral(":e"), experienceIds.at(i))
                    .bind(QStringLiteral(":plan"), planId)
                    .bind(QStringLiteral(":session"), sessionId)
                    .bind(QStringLiteral(":it"), iteration)
                    .bind(QStringLiteral(":rank"), int(i))
                    .bind(QStringLiteral(":now"), now);
                if (!q.exec()) {
                    e = q.error();
                    return false;
                }
            }
            return recountPlan(planId, e);
        },
        error);
    return ok || fail(error);
}

bool ExperienceStore::recordOutcome(const QString &planId, bool faster)
{
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            Statement q(m_db.connection(),
                        QStringLiteral("UPDATE retrievals SET outcome = :outcome WHERE plan_id = :plan"));
            q.bind(QStringLiteral(":outcome"),
                   RetrievalRecord::outcomeName(faster ? RetrievalRecord::Outcome::Faster
                                                       : RetrievalRecord::Outcome::NotFaster))
                .bind(QStringLiteral(":plan"), planId);
            if (!q.exec()) {
                e = q.error();
                return false;
            }
            return recountPlan(planId, e);
        },
        error);
    return ok || fail(error);
}

bool ExperienceStore::recountPlan(const QString &planId, QString &error)
{
    return recount(QStringLiteral("id IN (SELECT experience_id FROM retrievals WHERE plan_id = :v)"), planId,
                   error);
}

bool ExperienceStore::recount(const QString &which, const QVariant &value, QString &error)
{
    Statement q(m_db.connection(),
                QStringLiteral("UPDATE experiences SET shown = (SELECT count(*) FROM retrievals r WHERE "
                               "r.experience_id = experiences.id), decided = (SELECT count(r.outcome) FROM "
                               "retrievals r WHERE r.experience_id = experiences.id), faster = (SELECT "
                               "count(*) FROM retrievals r WHERE r.experience_id = experiences.id AND r.outcome "
                               "= 'faster') WHERE ") +
                    which);
    q.bind(QStringLiteral(":v"), value);
    if (!q.exec()) {
        error = q.error();
        return false;
    }
    return true;
}

QList<RetrievalRecord> ExperienceStore::retrievalsOf(qint64 experienceId) const
{
    QList<RetrievalRecord> result;
    Statement q(m_db.connection(),
                QStringLiteral("SELECT plan_id, session_id, iteration, rank, outcome, retrieved_at FROM "
                               "retrievals WHERE experience_id = :e ORDER BY retrieved_at, plan_id"));
    q.bind(QStringLiteral(":e"), experienceId);
    if (!q.exec()) {
        fail(q.error());
        return result;
    }
    while (q.next()) {
        RetrievalRecord r;
        r.experienceId = experienceId;
        r.planId = q.value(0).toString();
        r.sessionId = q.value(1).toString();
        r.iteration = q.value(2).toInt();
        r.rank = q.value(3).toInt();
        r.outcome = RetrievalRecord::outcomeFrom(q.value(4).toString());
        r.retrievedAt = QDateTime::fromString(q.value(5).toString(), Qt::ISODateWithMs);
        result.append(r);
    }
    return result;
}

bool ExperienceStore::restore(const ExperienceRecord &record, const QList<RetrievalRecord> &retrievals)
{
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            ExperienceRecord copy = record;
            Statement q(m_db.connection(), insertSql);
            if (!insert(q, copy, e))
                return false;
            Statement r(m_db.connection(),
                        QStringLiteral("INSERT INTO retrievals (experience_id, plan_id, session_id, iteration, "
                                       "rank, outcome, retrieved_at) VALUES (:e, :plan, :session, :it, :rank, "
                                       ":outcome, :at)"));
            for (const RetrievalRecord &x : retrievals) {
                r.bind(QStringLiteral(":e"), copy.id)
                    .bind(QStringLiteral(":plan"), x.planId)
                    .bind(QStringLiteral(":session"), x.sessionId)
                    .bind(QStringLiteral(":it"), x.iteration)
                    .bind(QStringLiteral(":rank"), x.rank)
                    .bind(QStringLiteral(":outcome"), Statement::orNull(RetrievalRecord::outcomeName(x.outcome)))
                    .bind(QStringLiteral(":at"), iso(x.retrievedAt));
                if (!r.exec()) {
                    e = r.error();
                    return false;
                }
            }
            return recount(QStringLiteral("id = :v"), copy.id, e);
        },
        error);
    return ok || fail(error);
}

bool ExperienceStore::setPinned(qint64 id, bool pinned)
{
    Statement q(m_db.connection(),
                QStringLiteral("UPDATE experiences SET pinned = :p, updated_at = :now WHERE id = :id"));
    q.bind(QStringLiteral(":p"), pinned ? 1 : 0)
        .bind(QStringLiteral(":now"), iso(QDateTime::currentDateTimeUtc()))
        .bind(QStringLiteral(":id"), id);
    if (!q.exec())
        return fail(q.error());
    return q.rowsAffected() > 0 || fail(QStringLiteral("no experience %1 in %2").arg(id).arg(m_path));
}

bool ExperienceStore::edit(qint64 id, const QString &title, const QString &lesson)
{
    if (title.trimmed().isEmpty() || lesson.trimmed().isEmpty())
        return fail(QStringLiteral("an experience needs a title and a lesson"));
    ExperienceRecord edited;
    edited.experience.title = title;
    edited.experience.lesson = lesson;
    if (const QString tooLong = ExperienceJson::oversize(edited); !tooLong.isEmpty())
        return fail(QStringLiteral("experience %1: %2").arg(id).arg(tooLong));
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            Statement q(m_db.connection(),
                        QStringLiteral("UPDATE experiences SET title = :t, lesson = :l, updated_at "
                                       "= :now WHERE id = :id"));
            q.bind(QStringLiteral(":t"), title)
                .bind(QStringLiteral(":l"), lesson)
                .bind(QStringLiteral(":now"), iso(QDateTime::currentDateTimeUtc()))
                .bind(QStringLiteral(":id"), id);
            if (!q.exec()) {
                e = q.error();
                return false;
            }
            if (q.rowsAffected() == 0)
                e = QStringLiteral("no experience %1 in %2").arg(id).arg(m_path);
            return q.rowsAffected() > 0;
        },
        error);
    return ok || fail(error);
}

bool ExperienceStore::remove(qint64 id)
{
    QString error;
    const bool ok = m_db.transact(
        [&](QString &e) {
            Statement q(m_db.connection(), QStringLiteral("DELETE FROM experiences WHERE id = :id"));
            q.bind(QStringLiteral(":id"), id);
            if (!q.exec()) {
                e = q.error();
                return false;
            }
            if (q.rowsAffected() == 0)
                e = QStringLiteral("no experience %1 in %2").arg(id).arg(m_path);
            return q.rowsAffected() > 0;
        },
        error);
    return ok || fail(error);
}

QJsonObject ExperienceStore::exportJson() const
{
    return ExperienceJson::document(select(QStringLiteral("ORDER BY e.created_at, e.id"), {}));
}

bool ExperienceStore::isDuplicate(const ExperienceRecord &r, bool &duplicate, QString &error) const
{
    return DuplicateLookup(m_db.connection()).find(r, duplicate, error);
}

bool ExperienceStore::dropOrderingIndexes(QString &error)
{
    static const QRegularExpression name(QStringLiteral("^CREATE INDEX (\\w+) "));
    for (const QString &sql : MemorySchema::orderingIndexes())
        if (!m_db.execute(QStringLiteral("DROP INDEX ") + name.match(sql).captured(1), error))
            return false;
    return true;
}

ExperienceStore::ImportResult ExperienceStore::importJson(const QByteArray &document)
{
    ImportResult result;
    QList<ExperienceRecord> records;
    if (!ExperienceJson::parseDocument(document, records, result.error)) {
        fail(result.error);
        return result;
    }
    int added = 0, duplicates = 0;
    QStringList rejections;
    // A large import touches the table, three indexes and the FTS index all over; with SQLite's default 2 MiB
    // page cache it spends most of its time re-reading and spilling pages. 64 MiB for the import only.
    QSqlQuery cache(m_db.connection());
    const QString before = cache.exec(QStringLiteral("PRAGMA cache_size")) && cache.next()
                               ? cache.value(0).toString()
                               : QString();
    cache.exec(QStringLiteral("PRAGMA cache_size = -262144"));
    const auto restoreCache = qScopeGuard([&] {
        if (!before.isEmpty())
            cache.exec(QStringLiteral("PRAGMA cache_size = ") + before);
    });
    // One transaction: the FTS5 index (fed by the insert trigger) buffers its new terms in memory and writes
    // them out once, at the commit, instead of once per entry.
    result.ok = m_db.transact(
        [&](QString &e) {
            const bool rebuildIndexes = records.size() >= rebuildThreshold;
            if (rebuildIndexes && !dropOrderingIndexes(e))
                return false;
            DuplicateLookup lookup(m_db.connection());
            Statement insertion(m_db.connection(), insertSql);
            for (qsizetype i = 0; i < records.size(); ++i) {
                ExperienceRecord &r = records[i];
                const QString tooLong = ExperienceJson::oversize(r);
                if (!tooLong.isEmpty()) {
                    rejections.append(QStringLiteral("%1: %2; not imported")
                                          .arg(ExperienceJson::entryName(i, r.experience.title), tooLong));
                    continue;
                }
                bool duplicate = false;
                if (!lookup.find(r, duplicate, e))
                    return false;
                if (duplicate) {
                    ++duplicates;
                    continue;
                }
                if (!insert(insertion, r, e))
                    return false;
                ++added;
            }
            if (rebuildIndexes)
                for (const QString &sql : MemorySchema::orderingIndexes())
                    if (!m_db.execute(sql, e))
                        return false;
            return true;
        },
        result.error);
    if (!result.ok) {
        fail(result.error);
        return result;
    }
    result.added = added;
    result.duplicates = duplicates;
    result.rejected = int(rejections.size());
    result.rejections = rejections;
    for (const QString &r : rejections)
        qCInfo(lcMemory).noquote() << "import:" << r; // the caller shows them; a warning would repeat them
    qCInfo(lcMemory) << "imported" << added << "experiences into" << m_path << "," << duplicates
                     << "duplicates skipped," << result.rejected << "rejected";
    return result;
}
