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

    static QJsonObject toJson(const ExperienceRecord &record);
    static QJsonObject document(const QList<ExperienceRecord> &records);
    // Validates the whole document before anything is used: on failure `error` names the bad entry (1-based,
    // with its title when it has one) and what is wrong with it, and `records` is left empty.
    static bool parseDocument(const QByteArray &bytes, QList<ExperienceRecord> &records, QString &error);

private:
    static bool fromJson(const QJsonObject &o, ExperienceRecord &record, QString &problem);
};
