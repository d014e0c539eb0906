#include "search/taskcreation.h"

#include "model/taskcatalog.h"
#include "model/taskcheckstamp.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>

struct TaskCreation::Parts
{
    Host *host = nullptr;
    std::unique_ptr<TaskCheck> check;
    QString draftDir;
    QString target;
    QStringList madeDirs; // folders the draft created on the way to its parent, deepest first
    bool running = false;
};

namespace {

// The roofline the check counted, so that later evals do not need the baseline again (numpy references: FLOPs
// from the baseline's trace). A task.json that states its own roofline keeps it.
bool storeCounted(const QString &draftDir, const QJsonObject &raw, QString &error)
{
    const QString path = QDir(draftDir).filePath(QStringLiteral("task.json"));
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("cannot read %1: %2").arg(path, in.errorString());
        return false;
    }
    QJsonObject task = QJsonDocument::fromJson(in.readAll()).object();
    in.close();
    for (const QString &key :
         {QStringLiteral("roofline"), QStringLiteral("small_roofline"), QStringLiteral("roofline_source")})
        if (!task.contains(key) && raw.value(key).isObject())
            task.insert(key, raw.value(key));
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) ||
        out.write(QJsonDocument(task).toJson(QJsonDocument::Indented)) < 0 || !out.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(path, out.errorString());
        return false;
    }
    return true;
}

} // namespace

TaskCreation::TaskCreation(Host *host, QObject *parent) : QObject(parent), m_parts(std::make_unique<Parts>())
{
    m_parts->host = host;
}

TaskCreation::~TaskCreation()
{
    // Abandoned while its check ran (the wizard cancelled): as a failed check, nothing stays.
    if (!m_parts->draftDir.isEmpty()) {
        QDir(m_parts->draftDir).removeRecursively();
        for (const QString &dir : std::as_const(m_parts->madeDirs))
            QDir().rmdir(dir);
    }
}

void TaskCreation::start(const TaskDraft &draft, const QString &parentDir, const QString &shippedDir,
                         const QString &nearPath)
{
    m_parts->running = true;
    Result r;
    if (!draft.validate(r.error)) {
        done(r);
        return;
    }
    m_parts->target = QDir(parentDir).filePath(draft.name);
    if (QFileInfo::exists(m_parts->target)) {
        r.error = QStringLiteral("%1 exists already; choose another name or remove it").arg(m_parts->target);
        done(r);
        return;
    }
    if (const auto same = TaskCatalog::find(draft.name, shippedDir, nearPath)) {
        r.error = QStringLiteral("a task named '%1' exists already (%2, %3); choose another name")
                      .arg(draft.name, same->origin, same->folder);
        done(r);
        return;
    }
    for (QDir up(parentDir); !up.exists(); up.setPath(QFileInfo(up.absolutePath()).absolutePath()))
        m_parts->madeDirs << up.absolutePath();
    m_parts->draftDir = draft.writeDraft(parentDir, r.error);
    if (m_parts->draftDir.isEmpty()) {
        done(r);
        return;
    }
    Q_EMIT progress(
        QStringLiteral("checking the task on the host: the reference, then the kernel at the small "
                       "and the full size"));
    m_parts->check = std::make_unique<TaskCheck>(m_parts->host);
    connect(m_parts->check.get(), &TaskCheck::finished, this, [this](const TaskCheck::Result &check) {
        Result made;
        made.check = check;
        if (!check.ok) {
            made.error = check.error;
            done(made);
            return;
        }
        if (!storeCounted(m_parts->draftDir, check.raw, made.error) ||
            !TaskCheckStamp::write(m_parts->draftDir, made.error)) {
            done(made);
            return;
        }
        if (QFileInfo::exists(m_parts->target) || !QDir().rename(m_parts->draftDir, m_parts->target)) {
            made.error =
                QStringLiteral("cannot move the checked task to %1 (it exists now, or the folder is not "
                               "writable)")
                    .arg(m_parts->target);
            done(made);
            return;
        }
        m_parts->draftDir.clear();
        // The draft was private while it was checked; a task is source the user may commit and share.
        QFile::setPermissions(m_parts->target, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                   QFileDevice::ExeOwner | QFileDevice::ReadGroup |
                                                   QFileDevice::ExeGroup | QFileDevice::ReadOther |
                                                   QFileDevice::ExeOther);
        made.ok = true;
        made.folder = m_parts->target;
        done(made);
    });
    m_parts->check->start(QJsonObject{{QStringLiteral("dir"), m_parts->draftDir}}, {}, draft.function);
}

void TaskCreation::done(const Result &result)
{
    if (!m_parts->running)
        return;
    m_parts->running = false;
    if (!result.ok) {
        if (!m_parts->draftDir.isEmpty())
            QDir(m_parts->draftDir).removeRecursively();
        m_parts->draftDir.clear();
        // A task that was not created leaves no empty .accelopt/tasks behind either.
        for (const QString &dir : std::as_const(m_parts->madeDirs))
            QDir().rmdir(dir);
    }
    // Queued: a check refused before it starts ends inside start(), before the caller waits for it.
    QMetaObject::invokeMethod(
        this, [this, result]() { Q_EMIT finished(result); }, Qt::QueuedConnection);
}
