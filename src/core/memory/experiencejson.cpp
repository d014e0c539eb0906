#include "memory/experiencejson.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace {
const QString formatName = QStringLiteral("accelopt-memory");
const QStringList optionalStrings{QStringLiteral("target"),
                                  QStringLiteral("snippet_before"),
                                  QStringLiteral("snippet_after"),
                                  QStringLiteral("slow_candidate_id"),
                                  QStringLiteral("fast_candidate_id"),
                                  QStringLiteral("slow_hash"),
                                  QStringLiteral("fast_hash"),
                                  QStringLiteral("session_id"),
                                  QStringLiteral("measured_on")};

QString isoTime(const QDateTime &t)
{
    return t.isValid() ? t.toUTC().toString(Qt::ISODateWithMs) : QString();
}
} // namespace

QJsonObject ExperienceJson::toJson(const ExperienceRecord &r)
{
    return QJsonObject{{QStringLiteral("task"), r.task},
                       {QStringLiteral("target"), r.target},
                       {QStringLiteral("kind"), r.kindName()},
                       {QStringLiteral("speedup"), r.experience.speedup},
                       {QStringLiteral("title"), r.experience.title},
                       {QStringLiteral("lesson"), r.experience.lesson},
                       {QStringLiteral("snippet_before"), r.experience.snippetBefore},
                       {QStringLiteral("snippet_after"), r.experience.snippetAfter},
                       {QStringLiteral("slow_candidate_id"), r.slowCandidateId},
                       {QStringLiteral("fast_candidate_id"), r.fastCandidateId},
                       {QStringLiteral("slow_hash"), r.slowHash},
                       {QStringLiteral("fast_hash"), r.fastHash},
                       {QStringLiteral("session_id"), r.sessionId},
                       {QStringLiteral("measured_on"), r.measuredOn},
                       {QStringLiteral("pinned"), r.pinned},
                       {QStringLiteral("created"), isoTime(r.created)},
                       {QStringLiteral("updated"), isoTime(r.updated)}};
}

QJsonObject ExperienceJson::document(const QList<ExperienceRecord> &records)
{
    QJsonArray entries;
    for (const ExperienceRecord &r : records)
        entries.append(toJson(r));
    return QJsonObject{{QStringLiteral("format"), formatName},
                       {QStringLiteral("version"), formatVersion},
                       {QStringLiteral("exported_at"), isoTime(QDateTime::currentDateTimeUtc())},
                       {QStringLiteral("experiences"), entries}};
}

bool ExperienceJson::fromJson(const QJsonObject &o, ExperienceRecord &r, QString &problem)
{
    for (const char *key : {"task", "title", "lesson"}) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (!v.isString() || v.toString().trimmed().isEmpty()) {
            problem = QStringLiteral("'%1' must be a non-empty text").arg(QLatin1String(key));
            return false;
        }
    }
    const QJsonValue speedup = o.value(QStringLiteral("speedup"));
    if (!speedup.isDouble() || !std::isfinite(speedup.toDouble()) || speedup.toDouble() <= 0) {
        problem =
            QStringLiteral("'speedup' must be a positive number (slow latency / fast latency as measured)");
        return false;
    }
    for (const QString &key : optionalStrings)
        if (o.contains(key) && !o.value(key).isString()) {
            problem = QStringLiteral("'%1' must be a text").arg(key);
            return false;
        }
    if (o.contains(QStringLiteral("pinned")) && !o.value(QStringLiteral("pinned")).isBool()) {
        problem = QStringLiteral("'pinned' must be true or false");
        return false;
    }
    // A NUL cuts the text short wherever it is passed on as C text (SQLite's FTS tokenizer, a terminal, a
    // prompt), so what is stored would not be what was shown: refuse it rather than store a lesson that changes.
    for (auto it = o.begin(); it != o.end(); ++it)
        if (it.value().isString() && it.value().toString().contains(QChar(u'\0'))) {
            problem = QStringLiteral("'%1' contains a NUL character; an experience's texts are plain text")
                          .arg(it.key());
            return false;
        }
    r = ExperienceRecord{};
    r.task = o.value(QStringLiteral("task")).toString();
    r.target = o.value(QStringLiteral("target")).toString();
    r.experience.title = o.value(QStringLiteral("title")).toString();
    r.experience.lesson = o.value(QStringLiteral("lesson")).toString();
    r.experience.speedup = speedup.toDouble();
    r.experience.snippetBefore = o.value(QStringLiteral("snippet_before")).toString();
    r.experience.snippetAfter = o.value(QStringLiteral("snippet_after")).toString();
    r.slowCandidateId = o.value(QStringLiteral("slow_candidate_id")).toString();
    r.fastCandidateId = o.value(QStringLiteral("fast_candidate_id")).toString();
    r.slowHash = o.value(QStringLiteral("slow_hash")).toString();
    r.fastHash = o.value(QStringLiteral("fast_hash")).toString();
    r.sessionId = o.value(QStringLiteral("session_id")).toString();
    r.measuredOn = o.value(QStringLiteral("measured_on")).toString();
    r.pinned = o.value(QStringLiteral("pinned")).toBool();
    if (o.contains(QStringLiteral("kind"))) {
        const QString kind = o.value(QStringLiteral("kind")).toString();
        if (kind != QStringLiteral("positive") && kind != QStringLiteral("negative")) {
            problem = QStringLiteral("'kind' must be \"positive\" or \"negative\"");
            return false;
        }
        if (kind != r.kindName()) {
            problem =
                QStringLiteral("'kind' is %1 but the speedup %2 makes it %3 (negative means speedup < 1)")
                    .arg(kind)
                    .arg(r.experience.speedup)
                    .arg(r.kindName());
            return false;
        }
    }
    for (const char *key : {"created", "updated"}) {
        const QString text = o.value(QLatin1String(key)).toString();
        const QDateTime t = QDateTime::fromString(text, Qt::ISODateWithMs);
        if (!text.isEmpty() && !t.isValid()) {
            problem = QStringLiteral("'%1' must be an ISO 8601 time, not '%2'").arg(QLatin1String(key), text);
            return false;
        }
        (qstrcmp(key, "created") == 0 ? r.created : r.updated) = t;
    }
    return true;
}

QString ExperienceJson::oversize(const ExperienceRecord &r)
{
    const auto over = [](const char *field, const QString &text, int cap) {
        return text.size() > cap ? QStringLiteral("'%1' has %2 characters, over the limit of %3")
                                       .arg(QLatin1String(field))
                                       .arg(text.size())
                                       .arg(cap)
                                 : QString();
    };
    for (const QString &problem : {over("title", r.experience.title, maxTitleChars),
                                   over("lesson", r.experience.lesson, maxLessonChars),
                                   over("snippet_before", r.experience.snippetBefore, maxSnippetChars),
                                   over("snippet_after", r.experience.snippetAfter, maxSnippetChars),
                                   over("measured_on", r.measuredOn, maxTitleChars)})
        if (!problem.isEmpty())
            return problem;
    return {};
}

QString ExperienceJson::entryName(qsizetype index, const QString &title)
{
    const QString shown = title.left(240).simplified(); // a huge title costs nothing here
    return shown.isEmpty() ? QStringLiteral("entry %1").arg(index + 1)
                           : QStringLiteral("entry %1 (\"%2\")").arg(index + 1).arg(shown.left(60));
}

bool ExperienceJson::parseDocument(const QByteArray &bytes, QList<ExperienceRecord> &records, QString &error)
{
    records.clear();
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        error = QStringLiteral("not valid JSON: %1 at byte %2")
                    .arg(parseError.errorString())
                    .arg(parseError.offset);
        return false;
    }
    const QJsonObject root = doc.object();
    if (!doc.isObject() || root.value(QStringLiteral("format")).toString() != formatName) {
        error = QStringLiteral("not an AccelOpt memory export (expected an object with \"format\": \"%1\")")
                    .arg(formatName);
        return false;
    }
    const int version = root.value(QStringLiteral("version")).toInt(-1);
    if (version < 1) {
        error = QStringLiteral("the export has no valid \"version\"");
        return false;
    }
    if (version > formatVersion) {
        error = QStringLiteral(
                    "the export is format version %1, written by a newer AccelOpt; this build reads up "
                    "to version %2")
                    .arg(version)
                    .arg(formatVersion);
        return false;
    }
    if (!root.value(QStringLiteral("experiences")).isArray()) {
        error = QStringLiteral("the export has no \"experiences\" list");
        return false;
    }
    const QJsonArray entries = root.value(QStringLiteral("experiences")).toArray();
    QList<ExperienceRecord> parsed;
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QJsonObject o = entries.at(i).toObject();
        const QString where = entryName(i, o.value(QStringLiteral("title")).toString());
        ExperienceRecord r;
        QString problem;
        if (!entries.at(i).isObject())
            problem = QStringLiteral("it is not an object");
        if (!problem.isEmpty() || !fromJson(o, r, problem)) {
            error = QStringLiteral("%1: %2; nothing was imported").arg(where, problem);
            return false;
        }
        parsed.append(r);
    }
    records = parsed;
    return true;
}
