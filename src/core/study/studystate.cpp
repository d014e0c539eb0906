#include "studystate.h"

#include "common/privatefiles.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <algorithm>

void StudyState::planRuns()
{
    runs.clear();
    for (const QString &task : tasks)
        for (int r = 0; r < repeats; ++r)
            for (const ArmSpec &a : arms)
                runs << Run{task, a.name, r, {}, false, {}, {}};
}

const ArmSpec *StudyState::arm(const QString &name) const
{
    for (const ArmSpec &a : arms)
        if (a.name == name)
            return &a;
    return nullptr;
}

QStringList StudyState::problems() const
{
    QStringList out = budget.problems();
    if (tasks.isEmpty())
        out << QStringLiteral("no task: give --task T (or --tasks A,B)");
    if (arms.isEmpty())
        out << QStringLiteral("no arm: give --arm NAME=SPEC at least once");
    QStringList names;
    for (const ArmSpec &a : arms) {
        if (names.contains(a.name))
            out << QStringLiteral("two arms are named '%1': give each arm its own name").arg(a.name);
        names << a.name;
    }
    if (repeats < 1 || repeats > 100)
        out << QStringLiteral("--repeats must be 1 to 100 (it is %1)").arg(repeats);
    return out;
}

QString StudyState::studiesDir(const QString &workspacePath)
{
    return workspacePath + QStringLiteral("-studies");
}

QJsonObject StudyState::toJson() const
{
    QJsonArray armList;
    for (const ArmSpec &a : arms)
        armList << a.toJson();
    QJsonArray runList;
    for (const Run &r : runs) {
        QJsonArray points;
        for (const Checkpoint &c : r.checkpoints) {
            QJsonObject p = c.measure.toJson();
            p.insert(QStringLiteral("round"), c.round);
            points << p;
        }
        runList << QJsonObject{
            {QStringLiteral("task"), r.task},       {QStringLiteral("arm"), r.arm},
            {QStringLiteral("repeat"), r.repeat},   {QStringLiteral("session"), r.sessionId},
            {QStringLiteral("done"), r.done},       {QStringLiteral("stop_reason"), r.stopReason},
            {QStringLiteral("checkpoints"), points}};
    }
    return {{QStringLiteral("format"), formatVersion},
            {QStringLiteral("id"), id},
            {QStringLiteral("created"), created},
            {QStringLiteral("tasks"), QJsonArray::fromStringList(tasks)},
            {QStringLiteral("size"), size},
            {QStringLiteral("target"), target},
            {QStringLiteral("backend"), backend},
            {QStringLiteral("host"), host},
            {QStringLiteral("jobs"), jobs},
            {QStringLiteral("seed"), seed},
            {QStringLiteral("budget"), budget.toJson()},
            {QStringLiteral("arms"), armList},
            {QStringLiteral("repeats"), repeats},
            {QStringLiteral("round"), round},
            {QStringLiteral("finished"), finished},
            {QStringLiteral("runs"), runList}};
}

std::optional<StudyState> StudyState::fromJson(const QJsonObject &o, QString *error)
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (o.value(QStringLiteral("format")).toInt() != formatVersion)
        return fail(QStringLiteral("format %1 is not %2 (written by another version of accelopt)")
                        .arg(o.value(QStringLiteral("format")).toInt())
                        .arg(formatVersion));
    StudyState s;
    s.id = o.value(QStringLiteral("id")).toString();
    s.created = o.value(QStringLiteral("created")).toString();
    for (const QJsonValue &t : o.value(QStringLiteral("tasks")).toArray())
        s.tasks << t.toString();
    s.size = o.value(QStringLiteral("size")).toString();
    s.target = o.value(QStringLiteral("target")).toString();
    s.backend = o.value(QStringLiteral("backend")).toString();
    s.host = o.value(QStringLiteral("host")).toString();
    s.jobs = o.value(QStringLiteral("jobs")).toInt(2);
    s.seed = o.value(QStringLiteral("seed")).toInt(1);
    QString why;
    const auto budget = StudyBudget::fromJson(o.value(QStringLiteral("budget")).toObject(), &why);
    if (!budget)
        return fail(why);
    s.budget = *budget;
    for (const QJsonValue &a : o.value(QStringLiteral("arms")).toArray()) {
        const auto arm = ArmSpec::fromJson(a.toObject(), &why);
        if (!arm)
            return fail(why);
        s.arms << *arm;
    }
    s.repeats = o.value(QStringLiteral("repeats")).toInt();
    s.round = o.value(QStringLiteral("round")).toInt();
    s.finished = o.value(QStringLiteral("finished")).toBool();
    for (const QJsonValue &v : o.value(QStringLiteral("runs")).toArray()) {
        const QJsonObject r = v.toObject();
        Run run{r.value(QStringLiteral("task")).toString(),
                r.value(QStringLiteral("arm")).toString(),
                r.value(QStringLiteral("repeat")).toInt(),
                r.value(QStringLiteral("session")).toString(),
                r.value(QStringLiteral("done")).toBool(),
                r.value(QStringLiteral("stop_reason")).toString(),
                {}};
        for (const QJsonValue &p : r.value(QStringLiteral("checkpoints")).toArray())
            run.checkpoints << Checkpoint{p.toObject().value(QStringLiteral("round")).toInt(),
                                          RunMeasure::fromJson(p.toObject())};
        if (!s.arm(run.arm))
            return fail(
                QStringLiteral("a run names the arm '%1', which the study does not have").arg(run.arm));
        s.runs << run;
    }
    if (const QStringList p = s.problems(); !p.isEmpty())
        return fail(p.join(QStringLiteral("; ")));
    if (s.round < 1 || s.round > s.budget.slices)
        return fail(QStringLiteral("round %1 is outside 1..%2").arg(s.round).arg(s.budget.slices));
    return s;
}

bool StudyState::save(const QString &dir, QString *error) const
{
    QString why;
    if (!PrivateFiles::makeFolder(dir, why)) {
        if (error)
            *error = why;
        return false;
    }
    QSaveFile out(file(dir));
    if (!out.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(out.fileName(), out.errorString());
        return false;
    }
    out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    out.write(QJsonDocument(toJson()).toJson(QJsonDocument::Indented));
    if (!out.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(out.fileName(), out.errorString());
        return false;
    }
    return true;
}

std::optional<StudyState> StudyState::load(const QString &dir, const QString &idPrefix, QString *error)
{
    const QStringList files = QDir(dir).entryList({idPrefix + QStringLiteral("*.json")}, QDir::Files);
    if (files.size() != 1) {
        if (error)
            *error = files.isEmpty()
                         ? QStringLiteral("no study '%1' in %2; the studies there are named by the ids "
                                          "'accelopt study' printed when it started")
                               .arg(idPrefix, QDir::toNativeSeparators(dir))
                         : QStringLiteral("'%1' matches %2 studies in %3; give more of the id")
                               .arg(idPrefix)
                               .arg(files.size())
                               .arg(QDir::toNativeSeparators(dir));
        return std::nullopt;
    }
    return readFile(dir + u'/' + files.first(), error);
}

std::optional<StudyState> StudyState::readFile(const QString &path, QString *error)
{
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(in.fileName(), in.errorString());
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(in.readAll(), &parseError);
    QString why = parseError.errorString();
    std::optional<StudyState> s = doc.isObject() ? fromJson(doc.object(), &why) : std::nullopt;
    if (!s && error)
        *error = QStringLiteral("%1 is not a study this version can read: %2; it was left untouched")
                     .arg(QDir::toNativeSeparators(in.fileName()), why);
    return s;
}

QList<StudyState> StudyState::loadAll(const QString &dir, QStringList *problems)
{
    QList<StudyState> out;
    for (const QString &name : QDir(dir).entryList({QStringLiteral("*.json")}, QDir::Files)) {
        QString why;
        if (std::optional<StudyState> s = readFile(dir + u'/' + name, &why))
            out << std::move(*s);
        else if (problems)
            *problems << why;
    }
    // ISO 8601 in UTC sorts as text; the id breaks a tie so the order is the same on every read.
    std::sort(out.begin(), out.end(), [](const StudyState &a, const StudyState &b) {
        return a.created != b.created ? a.created > b.created : a.id < b.id;
    });
    return out;
}
