#pragma once

#include "memory/experiencepage.h"
#include "memory/experiencerecord.h"
#include "memory/experiencesort.h"
#include "memory/memoryfilter.h"
#include "memory/retrievalrecord.h"
#include "store/database.h"

#include <QJsonObject>
#include <QList>
#include <QStringList>

#include <memory>
#include <optional>

class ExperienceBrowser;
class Statement;
class TermRarity;

// The optimization memory (docs/architecture.md, "Stores and files"): slow -> fast pairs and their lessons,
// kept across tasks and sessions in a database file of its own, with an FTS5 index for retrieval and for the
// memory browser. Failures return false / nullopt / empty and leave the reason in lastError().
class ExperienceStore
{
public:
    // ACCELOPT_MEMORY_DB, else <AppDataLocation>/memory.sqlite: per user, so the memory grows across
    // projects; a team shares one by pointing the setting (or the variable) at a common file.
    static QString defaultPath();

    explicit ExperienceStore(const QString &path = defaultPath());
    ~ExperienceStore();

    bool open();
    QString path() const { return m_path; }
    QString lastError() const { return m_error; }
    Database &database() { return m_db; }

    // Fills record.id and the times when they are unset. Title, lesson and task must not be empty; the
    // speedup must be positive; title, lesson and snippets within ExperienceJson's caps.
    bool add(ExperienceRecord &record);
    // Whether the memory already holds this experience: the same task and kernel pair, or the same title and
    // lesson (the duplicate rule of importJson). False on a read error, with lastError() set.
    bool contains(const ExperienceRecord &record) const;
    std::optional<ExperienceRecord> get(qint64 id) const;
    // The lesson of a pair of kernels, by their KernelNormalizer hashes, whichever of the two was the slow
    // one; nullopt when the memory has none (or on an error, in lastError()).
    std::optional<ExperienceRecord> forPair(const QString &hashA, const QString &hashB) const;
    // Pinned first, then newest first; an empty task lists every task.
    QList<ExperienceRecord> list(const QString &task = {}) const;
    int count() const;
    enum class Field { Task, Target, Session };
    // The distinct non-empty values of a field, sorted: what the browser's filters offer.
    QStringList distinct(Field field) const;

    // The memory browser's list: `limit` rows from `offset` of the experiences matching `filter`, in `sort`'s
    // order, with the list's length and the memory's (ExperienceBrowser keeps the ordered ids between calls,
    // so paging through one list costs one query). nullopt with lastError() on a bad page or an SQL error.
    std::optional<ExperiencePage> page(const MemoryFilter &filter, const ExperienceSort &sort, int offset,
                                       int limit);
    // The row of an experience in that list; -1 when it is not in it (or on an error, in lastError()).
    int rowOf(const MemoryFilter &filter, const ExperienceSort &sort, qint64 id);

    // The memory browser's search: every word of `userText` must occur (see FtsQuery::allWords), best bm25
    // first. Any text is safe, quotes and FTS operators included; text with no searchable word lists
    // everything.
    QList<ExperienceRecord> search(const QString &userText, int limit = 100) const;
    // What the planner sees (RetrievalPolicy): same task first, pinned first within it, then similarity of
    // `queryText` (the kernel, its profile) to each experience; at most `limit`, negatives included as
    // warnings. Similarity is measured on the query's distinctive words (TermRarity) and only the candidates
    // the policy can choose are read (RetrievalCandidates), so the time does not grow with the memory.
    QList<ExperienceRecord> retrieve(const QString &task, const QString &target, const QString &queryText,
                                     int limit = 16) const;
    // Reads the word counts retrieve() needs for this text (a search's starting kernel) ahead of time, off the
    // planner's path: the first sight of a kernel's common words costs a few milliseconds each.
    void prepareRetrieval(const QString &queryText) const;

    // Usage evidence. recordRetrieval: these experiences (in rank order) were shown to the planner for
    // `planId`; recording the same plan again changes nothing. recordOutcome: that plan's kernels were
    // measured and one of them was (or none was) faster than the kernel the plan started from.
    bool recordRetrieval(const QString &sessionId, int iteration, const QString &planId,
                         const QList<qint64> &experienceIds);
    bool recordOutcome(const QString &planId, bool faster);
    QList<RetrievalRecord> retrievalsOf(qint64 experienceId) const;

    bool setPinned(qint64 id, bool pinned);
    // Title and lesson must not be empty and stay within ExperienceJson's caps.
    bool edit(qint64 id, const QString &title, const QString &lesson);
    bool remove(qint64 id);
    // Puts back a removed experience with its id and usage evidence (the browser's undo of a delete).
    bool restore(const ExperienceRecord &record, const QList<RetrievalRecord> &retrievals);

    QJsonObject exportJson() const;
    struct ImportResult
    {
        bool ok = false;
        int added = 0;
        int duplicates =
            0; // already in this memory: same task and same slow/fast kernels, or same title+lesson
        int rejected = 0;       // over a size cap of ExperienceJson (title, lesson, snippets)
        QStringList rejections; // one message per rejected entry, naming it by index and title
        QString error;
    };
    // A malformed document or entry fails the whole import (the error names the bad entry) and adds nothing.
    // Otherwise an entry over a size cap (ExperienceJson::maxTitleChars, maxLessonChars, maxSnippetChars) is
    // rejected on its own and the rest is added, in one transaction; time grows linearly with the entries.
    ImportResult importJson(const QByteArray &document);

private:
    bool fail(const QString &error) const;
    bool failToOpen(const QString &error) const;
    bool insert(Statement &statement, ExperienceRecord &record, QString &error);
    bool isDuplicate(const ExperienceRecord &record, bool &duplicate, QString &error) const;
    bool recount(const QString &which, const QVariant &value, QString &error);
    bool recountPlan(const QString &planId, QString &error); // the experiences shown to that plan
    bool dropOrderingIndexes(QString &error);
    // From this many entries an import rebuilds the ordering indexes instead of updating them per row.
    static constexpr qsizetype rebuildThreshold = 5000;
    QList<ExperienceRecord> select(const QString &where, const QList<QPair<QString, QVariant>> &binds) const;

    QString m_path;
    Database m_db;
    mutable QString m_error;
    std::unique_ptr<TermRarity> m_rarity; // retrieve()'s cache of word counts
    std::unique_ptr<ExperienceBrowser> m_browser; // page()'s temporary tables, dropped before m_db closes
};
