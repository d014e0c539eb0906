#pragma once

#include "memory/experiencerecord.h"

#include "memory/retrievalrecord.h"

#include <QDockWidget>
#include <QHash>

#include <functional>
#include <optional>

#include <memory>

class AppContext;
class ExperienceDetail;
class ExperienceListModel;
class MemoryUndoCommand;
class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QKeySequence;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class QUndoStack;
class UserPrompts;
struct MemoryFilter;

// The optimization memory, browsed and curated (docs/architecture.md): search as you type, filters, a
// sortable list of any size, the selected experience in full with its usage evidence, and the curating
// actions, each undoable where it changes an experience: edit, pin, delete; import and export JSON; open
// the pair in Compare. Every action has a key (see the view's context menu, Shift+F10).
//
// It holds no store: every read and write goes through the AppContext to the engine's thread (MemoryService),
// the memory the engine's searches use, and the answers come back as snapshots (ExperienceListModel's pages,
// one record for the detail). It refreshes when the memory changes.
class MemoryDock : public QDockWidget
{
    Q_OBJECT
public:
    // The memory is the context's (AppContext::memoryPath()).
    MemoryDock(AppContext *context, UserPrompts *prompts, QWidget *parent = nullptr);
    ~MemoryDock() override;

    // True once the memory is open and listed. Otherwise asks the engine to open and list it (done on first
    // show, so the window starts without waiting for it) and returns false; the list arrives later, or the
    // count label says why it cannot.
    bool ensureOpen();
    ExperienceListModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    ExperienceDetail *detail() const { return m_detail; }
    QLineEdit *searchEdit() const { return m_search; }
    QComboBox *taskFilter() const { return m_task; }
    QComboBox *kindFilter() const { return m_kind; }
    QCheckBox *pinnedFilter() const { return m_pinnedOnly; }
    QUndoStack *undoStack() const { return m_undo; }
    // In a window whose Edit menu has Undo and Redo on the same keys: those route here by focus instead.
    void leaveUndoKeysToWindow();
    static QList<QKeySequence> redoKeys();
    QLabel *countLabel() const { return m_count; }
    QAction *editAction() const { return m_edit; }
    QAction *pinAction() const { return m_pin; }
    QAction *deleteAction() const { return m_delete; }
    QAction *compareAction() const { return m_compare; }
    QAction *importAction() const { return m_import; }
    QAction *exportAction() const { return m_export; }
    qint64 selectedId() const;
    // Selects an experience: at once when its row is among the rows here, else when the list comes back.
    void selectId(qint64 id);
    // Nothing asked of the engine is still unanswered (a list, a page, the detail, a change, an import).
    bool isIdle() const;
    // Applies the search and filters now, instead of after the typing pause.
    void applyFilterNow();
    void refresh();

Q_SIGNALS:
    void compareRequested(const ExperienceRecord &record);

private:
    void buildFilters(QWidget *bar);
    void createActions();
    MemoryFilter currentFilter() const;
    void reloadChoices();
    void showSelected();
    void updateActions();
    void updateActions(const std::optional<ExperienceRecord> &selected);
    void updateCount();
    void listed(bool ok, qint64 keepId, int keepRow);
    void selectRow(int row);
    // Loads the selected experience afresh, then runs `then` with it; nothing at all when it is gone.
    void withFreshSelected(std::function<void(const ExperienceRecord &, const QList<RetrievalRecord> &)> then);
    void push(const QString &text, std::function<quint64()> apply, std::function<quint64()> revert,
              const QString &failure);
    void changeAnswered(quint64 job, const QString &error);
    void dropFailed(quint64 job);
    void openEditor(const ExperienceRecord &record);
    void editSelected();
    void togglePinSelected();
    void deleteSelected();
    void compareSelected();
    void importFile();
    void exportFile();
    void failed(const QString &what); // the model's last error
    void failed(const QString &what, const QString &reason);

    enum class Opening { NotAsked, Asking, Open, Failed };

    AppContext *m_context;
    UserPrompts *m_prompts;
    Opening m_opening = Opening::NotAsked;
    bool m_refreshing = false; // the list asked for is a refresh (its failure is told differently)
    quint64 m_choicesJob = 0;
    quint64 m_detailJob = 0;
    std::optional<ExperienceRecord> m_selected; // the detail's record, as the engine last sent it
    QHash<quint64, std::function<void(const ExperienceRecord &, const QList<RetrievalRecord> &)>> m_fresh;
    QHash<quint64, QString> m_changes; // a curating step on its way -> what to say if it fails
    QHash<quint64, qint64> m_selectAfter; // a delete's job -> the experience to select once it is done
    quint64 m_importJob = 0;
    quint64 m_exportJob = 0;
    bool m_stale = false; // the memory changed while the dock was hidden
    ExperienceListModel *m_model = nullptr;
    QUndoStack *m_undo;
    QTimer *m_debounce;
    QLineEdit *m_search;
    QComboBox *m_task;
    QComboBox *m_target;
    QComboBox *m_session;
    QComboBox *m_kind;
    QComboBox *m_since;
    QCheckBox *m_pinnedOnly;
    QDoubleSpinBox *m_minSpeedup;
    QDoubleSpinBox *m_maxSpeedup;
    QLabel *m_count;
    QTableView *m_view;
    ExperienceDetail *m_detail;
    QAction *m_find = nullptr;
    QAction *m_compare = nullptr;
    QAction *m_edit = nullptr;
    QAction *m_pin = nullptr;
    QAction *m_delete = nullptr;
    QAction *m_import = nullptr;
    QAction *m_export = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
};
