#pragma once

#include "memory/experiencerecord.h"

#include <QDockWidget>

#include <memory>

class AppContext;
class ExperienceDetail;
class ExperienceListModel;
class ExperienceStore;
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

// The optimization memory, browsed and curated (DESIGN.md §3 step 6, §8): search as you type, filters, a
// sortable list of any size, the selected experience in full with its usage evidence, and the curating
// actions, each undoable where it changes an experience: edit, pin, delete; import and export JSON; open
// the pair in Compare. Every action has a key (see the view's context menu, Shift+F10).
//
// It reads the memory file through its own connection on the window's thread (the engine's search writes
// through another), and refreshes when the search stores a lesson.
class MemoryDock : public QDockWidget
{
    Q_OBJECT
public:
    // An empty path: ExperienceStore::defaultPath(), the file the engine's searches use.
    MemoryDock(AppContext *context, UserPrompts *prompts, const QString &path = {}, QWidget *parent = nullptr);
    ~MemoryDock() override;

    // Opens the memory and lists it; done on first show so the window starts without waiting for it.
    bool ensureOpen();
    ExperienceStore *store() const { return m_store.get(); }
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
    void selectId(qint64 id);
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
    void editSelected();
    void togglePinSelected();
    void deleteSelected();
    void compareSelected();
    void importFile();
    void exportFile();
    void failed(const QString &what);

    AppContext *m_context;
    UserPrompts *m_prompts;
    std::unique_ptr<ExperienceStore> m_store;
    bool m_opened = false;
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
