#pragma once

#include "memory/experiencepage.h"
#include "memory/experiencepagerequest.h"
#include "memory/experiencerecord.h"
#include "memory/experiencestore.h"
#include "memory/retrievalrecord.h"

#include <QObject>
#include <QStringList>

#include <functional>
#include <optional>

// The engine's desk for the Memory dock: browsing (pages of the list, the filters' choices, one experience with
// its usage evidence), curating (edit, pin, delete, restore) and import/export files. It lives on the engine's
// thread and works on the engine's own memory store, so no memory SQL and no export file runs on the window's
// thread. Every answer carries the caller's job id; an error is a sentence, never a crash.
class MemoryService : public QObject
{
    Q_OBJECT
public:
    // Opens (once) and returns the engine's memory, or null with the reason.
    using StoreProvider = std::function<ExperienceStore *(QString &error)>;
    explicit MemoryService(StoreProvider store, QObject *parent = nullptr);

    void page(quint64 job, const ExperiencePageRequest &request);
    void choices(quint64 job);
    void load(quint64 job, qint64 id);
    void edit(quint64 job, qint64 id, const QString &title, const QString &lesson);
    void setPinned(quint64 job, qint64 id, bool pinned);
    void remove(quint64 job, qint64 id);
    void restore(quint64 job, const ExperienceRecord &record, const QList<RetrievalRecord> &retrievals);
    // Reads a memory export (refusing one over ExperienceJson::maxDocumentBytes before reading it) and adds it.
    void importFile(quint64 job, const QString &path);
    // Writes the whole memory as JSON, atomically (an interrupted export leaves no half file).
    void exportFile(quint64 job, const QString &path);

Q_SIGNALS:
    void paged(quint64 job, const ExperiencePage &page, const QString &error);
    void choicesListed(quint64 job, const QStringList &tasks, const QStringList &targets,
                       const QStringList &sessions, const QString &error);
    // record is nullopt when the experience is gone (error empty) or could not be read (error set).
    void loaded(quint64 job, const std::optional<ExperienceRecord> &record, const QList<RetrievalRecord> &retrievals,
                const QString &error);
    void changed(quint64 job, const QString &error); // edit, pin, remove, restore
    // fileError: the file could not be read; otherwise result says what the import did (result.ok false:
    // nothing was imported, result.error why).
    void imported(quint64 job, const QString &path, const ExperienceStore::ImportResult &result,
                  const QString &fileError);
    void exported(quint64 job, const QString &path, int count, const QString &error);

private:
    StoreProvider m_store;
};
