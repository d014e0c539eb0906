#pragma once

#include "memory/experiencerecord.h"

#include <QJsonObject>
#include <QList>

// The memory's exchange format, so a team can share lessons and a user can back them up:
//   {"format": "accelopt-memory", "version": 1, "exported_at": "...", "experiences": [{...}, ...]}
// Each entry: task, title, lesson and speedup (required); kind ("positive"/"negative", must agree with the
// speedup), target, snippet_before, snippet_after, slow_candidate_id, fast_candidate_id, slow_hash,
// fast_hash, session_id, pinned, created, updated (optional). Database ids are not exported: they mean
// nothing elsewhere.
class ExperienceJson
{
public:
    static constexpr int formatVersion = 1;
    // Size caps, in characters, that a real lesson never comes near; an entry over one is refused on import
    // (counted as rejected) so a damaged or hostile file cannot bloat the memory or every planner prompt.
    static constexpr int maxTitleChars = 300;
    static constexpr int maxLessonChars = 16 * 1024;
    static constexpr int maxSnippetChars = 64 * 1024; // each of snippet_before and snippet_after
    // A whole export document: far beyond any real memory, small enough that a wrong pick fails fast.
    static constexpr qint64 maxDocumentBytes = 256LL * 1024 * 1024;

    // Empty when the record is within the caps, else which field is too long.
    static QString oversize(const ExperienceRecord &record);
    // "entry 3 (\"Its title\")": how messages name an entry of a document; `index` is 0-based.
    static QString entryName(qsizetype index, const QString &title);

    static QJsonObject toJson(const ExperienceRecord &record);
    static QJsonObject document(const QList<ExperienceRecord> &records);
    // Validates the whole document before anything is used: on failure `error` names the bad entry (1-based,
    // with its title when it has one) and what is wrong with it, and `records` is left empty.
    static bool parseDocument(const QByteArray &bytes, QList<ExperienceRecord> &records, QString &error);

private:
    static bool fromJson(const QJsonObject &o, ExperienceRecord &record, QString &problem);
};
