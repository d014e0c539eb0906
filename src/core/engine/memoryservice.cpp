#include "engine/memoryservice.h"

#include "memory/experiencejson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

MemoryService::MemoryService(StoreProvider store, QObject *parent) : QObject(parent), m_store(std::move(store)) {}

void MemoryService::page(quint64 job, const ExperiencePageRequest &request)
{
    QString error;
    ExperienceStore *store = m_store(error);
    if (!store) {
        Q_EMIT paged(job, {}, error);
        return;
    }
    int offset = request.offset;
    int focusRow = -1;
    if (request.focusId > 0) {
        // The page that holds the experience to keep, so the window can select it at once.
        focusRow = store->rowOf(request.filter, request.sort, request.focusId);
        if (focusRow < 0 && !store->lastError().isEmpty()) {
            Q_EMIT paged(job, {}, store->lastError());
            return;
        }
        if (focusRow >= 0 && request.limit > 0)
            offset = focusRow - focusRow % request.limit;
    }
    std::optional<ExperiencePage> page = store->page(request.filter, request.sort, offset, request.limit);
    if (!page) {
        Q_EMIT paged(job, {}, store->lastError());
        return;
    }
    page->focusRow = focusRow;
    Q_EMIT paged(job, *page, {});
}

void MemoryService::choices(quint64 job)
{
    QString error;
    ExperienceStore *store = m_store(error);
    if (!store) {
        Q_EMIT choicesListed(job, {}, {}, {}, error);
        return;
    }
    const QStringList tasks = store->distinct(ExperienceStore::Field::Task);
    const QStringList targets = store->distinct(ExperienceStore::Field::Target);
    const QStringList sessions = store->distinct(ExperienceStore::Field::Session);
    Q_EMIT choicesListed(job, tasks, targets, sessions, {});
}

void MemoryService::load(quint64 job, qint64 id)
{
    QString error;
    ExperienceStore *store = m_store(error);
    if (!store) {
        Q_EMIT loaded(job, std::nullopt, {}, error);
        return;
    }
    const std::optional<ExperienceRecord> record = id > 0 ? store->get(id) : std::nullopt;
    const QList<RetrievalRecord> retrievals = record ? store->retrievalsOf(id) : QList<RetrievalRecord>{};
    Q_EMIT loaded(job, record, retrievals, {});
}

void MemoryService::edit(quint64 job, qint64 id, const QString &title, const QString &lesson)
{
    QString error;
    ExperienceStore *store = m_store(error);
    const bool ok = store && store->edit(id, title, lesson);
    Q_EMIT changed(job, ok ? QString() : store ? store->lastError() : error);
}

void MemoryService::setPinned(quint64 job, qint64 id, bool pinned)
{
    QString error;
    ExperienceStore *store = m_store(error);
    const bool ok = store && store->setPinned(id, pinned);
    Q_EMIT changed(job, ok ? QString() : store ? store->lastError() : error);
}

void MemoryService::remove(quint64 job, qint64 id)
{
    QString error;
    ExperienceStore *store = m_store(error);
    const bool ok = store && store->remove(id);
    Q_EMIT changed(job, ok ? QString() : store ? store->lastError() : error);
}

void MemoryService::restore(quint64 job, const ExperienceRecord &record, const QList<RetrievalRecord> &retrievals)
{
    QString error;
    ExperienceStore *store = m_store(error);
    const bool ok = store && store->restore(record, retrievals);
    Q_EMIT changed(job, ok ? QString() : store ? store->lastError() : error);
}

void MemoryService::importFile(quint64 job, const QString &path)
{
    ExperienceStore::ImportResult result;
    QString error;
    ExperienceStore *store = m_store(error);
    if (!store) {
        Q_EMIT imported(job, path, result, error);
        return;
    }
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        Q_EMIT imported(job, path, result, QStringLiteral("Cannot read %1: %2").arg(path, in.errorString()));
        return;
    }
    if (in.size() > ExperienceJson::maxDocumentBytes) {
        Q_EMIT imported(job, path, result,
                        QStringLiteral("%1 is %2 MiB, too large for a memory export (the limit is %3 MiB).")
                            .arg(path)
                            .arg(in.size() / (1024 * 1024))
                            .arg(ExperienceJson::maxDocumentBytes / (1024 * 1024)));
        return;
    }
    result = store->importJson(in.readAll());
    Q_EMIT imported(job, path, result, {});
}

void MemoryService::exportFile(quint64 job, const QString &path)
{
    QString error;
    ExperienceStore *store = m_store(error);
    if (!store) {
        Q_EMIT exported(job, path, 0, error);
        return;
    }
    const QJsonObject document = store->exportJson();
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) ||
        out.write(QJsonDocument(document).toJson(QJsonDocument::Indented)) < 0 || !out.commit()) {
        Q_EMIT exported(job, path, 0, QStringLiteral("Cannot write %1: %2").arg(path, out.errorString()));
        return;
    }
    Q_EMIT exported(job, path, int(document.value(QStringLiteral("experiences")).toArray().size()), {});
}
