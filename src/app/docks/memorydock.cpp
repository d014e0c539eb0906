#include "memorydock.h"

#include "appcontext.h"
#include "experiencedetail.h"
#include "experienceeditdialog.h"
#include "itemmodels/experiencelistmodel.h"
#include "itemmodels/searchstate.h"
#include "memoryundocommand.h"
#include "userprompts.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

namespace {
// Long enough that a burst of typing runs one query, short enough to feel immediate.
constexpr int typingPauseMs = 80;

QComboBox *choices(const QString &any, QWidget *parent)
{
    auto *box = new QComboBox(parent);
    box->addItem(any, QString());
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    return box;
}

QDoubleSpinBox *speedupBox(const QString &any, QWidget *parent)
{
    auto *box = new QDoubleSpinBox(parent);
    box->setRange(0, 1000);
    box->setDecimals(2);
    box->setSingleStep(0.1);
    box->setSuffix(QStringLiteral("×"));
    box->setSpecialValueText(any); // 0: no bound
    return box;
}
} // namespace

MemoryDock::MemoryDock(AppContext *context, UserPrompts *prompts, QWidget *parent)
    : QDockWidget(tr("Memory"), parent), m_context(context), m_prompts(prompts), m_undo(new QUndoStack(this)),
      m_debounce(new QTimer(this))
{
    setObjectName(QStringLiteral("MemoryDock"));
    auto *body = new QWidget(this);
    m_search = new QLineEdit(body);
    m_search->setObjectName(QStringLiteral("memorySearch"));
    m_search->setPlaceholderText(tr("Search titles, lessons, code and tasks (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    auto *filterBar = new QWidget(body);
    buildFilters(filterBar);
    m_count = new QLabel(body);

    m_view = new QTableView(body);
    m_view->setObjectName(QStringLiteral("memoryView"));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setSortingEnabled(true);
    m_view->horizontalHeader()->setSortIndicatorShown(false); // until a column is chosen: relevance or newest
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->setWordWrap(false);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_view->setMinimumHeight(m_view->fontMetrics().height() * 3);
    m_detail = new ExperienceDetail(body);

    auto *split = new QSplitter(Qt::Horizontal, body);
    split->addWidget(m_view);
    split->addWidget(m_detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({600, 400});
    auto *top = new QHBoxLayout;
    top->addWidget(m_search, 1);
    top->addWidget(m_count);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(filterBar);
    layout->addWidget(split, 1);
    setWidget(body);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(typingPauseMs);
    connect(m_debounce, &QTimer::timeout, this, &MemoryDock::applyFilterNow);
    connect(m_search, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    createActions();
    connect(m_view, &QTableView::activated, this, &MemoryDock::compareSelected);
    connect(this, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && !ensureOpen())
            return;
        if (visible && m_stale)
            refresh();
    });
    // A hidden dock does not list a memory of any size at every iteration; it catches up when shown.
    const auto memoryChanged = [this] {
        m_stale = true;
        if (isVisible())
            refresh();
    };
    // (Its own changes it reads again itself, keeping the selection where it belongs; AppContext::memoryChanged
    // is for the other views.)
    connect(m_context, &AppContext::lessonStored, this, memoryChanged);
    connect(m_context->search(), &SearchState::iterationChanged, this, memoryChanged);
    connect(m_context, &AppContext::memoryChoicesListed, this,
            [this](quint64 job, const QStringList &tasks, const QStringList &targets, const QStringList &sessions,
                   const QString &) {
                if (job != m_choicesJob)
                    return;
                m_choicesJob = 0;
                const auto fill = [](QComboBox *box, const QStringList &values) {
                    const QString current = box->currentData().toString();
                    while (box->count() > 1)
                        box->removeItem(1);
                    for (const QString &value : values)
                        box->addItem(value, value);
                    box->setCurrentIndex(std::max(0, box->findData(current)));
                };
                fill(m_task, tasks);
                fill(m_target, targets);
                fill(m_session, sessions);
            });
    connect(m_context, &AppContext::experienceLoaded, this,
            [this](quint64 job, const std::optional<ExperienceRecord> &record,
                   const QList<RetrievalRecord> &retrievals, const QString &error) {
                if (const auto then = m_fresh.take(job)) {
                    if (record)
                        then(*record, retrievals);
                    else if (!error.isEmpty()) // gone is nothing to do; unreadable is worth saying
                        failed(tr("The experience could not be read"), error);
                    return;
                }
                if (job != m_detailJob)
                    return; // the selection moved on since
                m_detailJob = 0;
                m_selected = record;
                m_detail->setExperience(record, record ? retrievals : QList<RetrievalRecord>{});
                updateActions(record);
            });
    connect(m_context, &AppContext::experienceChanged, this, &MemoryDock::changeAnswered);
    connect(m_context, &AppContext::memoryImported, this,
            [this](quint64 job, const QString &path, const ExperienceStore::ImportResult &result,
                   const QString &fileError) {
                if (job != m_importJob)
                    return;
                m_importJob = 0;
                if (!fileError.isEmpty()) {
                    m_prompts->warn(this, tr("Import Memory"), fileError);
                    return;
                }
                if (!result.ok) {
                    m_prompts->warn(this, tr("Import Memory"),
                                    tr("Nothing was imported from %1: %2").arg(path, result.error));
                    return;
                }
                QString text = tr("From %1: added %2, %3 already in the memory (duplicates), %4 rejected.")
                                   .arg(path)
                                   .arg(result.added)
                                   .arg(result.duplicates)
                                   .arg(result.rejected);
                for (int i = 0; i < std::min<qsizetype>(result.rejections.size(), 10); ++i)
                    text += QStringLiteral("\n• ") + result.rejections.at(i);
                if (result.rejections.size() > 10)
                    text += tr("\n… and %1 more").arg(result.rejections.size() - 10);
                refresh();
                m_prompts->inform(this, tr("Import Memory"), text);
            });
    connect(m_context, &AppContext::memoryExported, this,
            [this](quint64 job, const QString &path, int count, const QString &error) {
                if (job != m_exportJob)
                    return;
                m_exportJob = 0;
                if (!error.isEmpty()) {
                    m_prompts->warn(this, tr("Export Memory"), error);
                    return;
                }
                m_prompts->inform(this, tr("Export Memory"),
                                  tr("Exported %n experience(s) to %1.", nullptr, count).arg(path));
            });
    updateActions();
}

MemoryDock::~MemoryDock() = default;

void MemoryDock::buildFilters(QWidget *bar)
{
    m_task = choices(tr("All tasks"), bar);
    m_target = choices(tr("All targets"), bar);
    m_session = choices(tr("All sessions"), bar);
    m_kind = new QComboBox(bar);
    m_kind->addItem(tr("Faster and slower"), int(MemoryFilter::Kind::Any));
    m_kind->addItem(tr("Faster only"), int(MemoryFilter::Kind::Positive));
    m_kind->addItem(tr("Slower only (warnings)"), int(MemoryFilter::Kind::Negative));
    m_since = new QComboBox(bar);
    m_since->addItem(tr("Any date"), 0);
    m_since->addItem(tr("Today"), 1);
    m_since->addItem(tr("Last 7 days"), 7);
    m_since->addItem(tr("Last 30 days"), 30);
    m_since->addItem(tr("Last year"), 365);
    m_pinnedOnly = new QCheckBox(tr("&Pinned only"), bar);
    m_minSpeedup = speedupBox(tr("any"), bar);
    m_maxSpeedup = speedupBox(tr("any"), bar);
    m_minSpeedup->setToolTip(tr("Lowest speedup shown"));
    m_maxSpeedup->setToolTip(tr("Highest speedup shown"));
    auto *speedup = new QLabel(tr("Speedup"), bar);
    auto *to = new QLabel(QStringLiteral("–"), bar);
    auto *layout = new QHBoxLayout(bar);
    layout->setContentsMargins(0, 0, 0, 0);
    for (QWidget *w : std::initializer_list<QWidget *>{m_task, m_target, m_kind, m_session, m_since, speedup,
                                                       m_minSpeedup, to, m_maxSpeedup, m_pinnedOnly})
        layout->addWidget(w);
    layout->addStretch(1);
    for (QComboBox *box : {m_task, m_target, m_session, m_kind, m_since})
        connect(box, &QComboBox::activated, this, &MemoryDock::applyFilterNow);
    connect(m_pinnedOnly, &QCheckBox::toggled, this, &MemoryDock::applyFilterNow);
    for (QDoubleSpinBox *box : {m_minSpeedup, m_maxSpeedup})
        connect(box, &QDoubleSpinBox::valueChanged, m_debounce, qOverload<>(&QTimer::start));
}

void MemoryDock::createActions()
{
    const auto action = [this](const QString &text, const QKeySequence &key, void (MemoryDock::*slot)()) {
        auto *a = new QAction(text, this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(a, &QAction::triggered, this, slot);
        addAction(a); // the shortcut works anywhere in the dock
        return a;
    };
    m_find = new QAction(tr("Find"), this);
    m_find->setShortcut(QKeySequence::Find);
    m_find->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_find, &QAction::triggered, this, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
    addAction(m_find);
    m_compare = action(tr("Open in &Compare"), QKeySequence(Qt::CTRL | Qt::Key_Return), &MemoryDock::compareSelected);
    m_edit = action(tr("&Edit Title and Lesson…"), QKeySequence(Qt::Key_F2), &MemoryDock::editSelected);
    m_pin = action(tr("&Pin"), QKeySequence(Qt::CTRL | Qt::Key_M), &MemoryDock::togglePinSelected);
    m_delete = action(tr("&Delete"), QKeySequence::Delete, &MemoryDock::deleteSelected);
    m_undoAction = m_undo->createUndoAction(this, tr("&Undo"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_undoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(m_undoAction);
    m_redoAction = m_undo->createRedoAction(this, tr("&Redo"));
    // Both conventions: Ctrl+Shift+Z (KDE, GNOME, Qt Creator) and Ctrl+Y, whatever the platform theme says.
    m_redoAction->setShortcuts(redoKeys());
    m_redoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(m_redoAction);
    m_import = action(tr("&Import JSON…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I), &MemoryDock::importFile);
    // Not Ctrl+Shift+S: that is Save As in the window.
    m_export = action(tr("E&xport JSON…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X), &MemoryDock::exportFile);
    auto *separator = new QAction(this);
    separator->setSeparator(true);
    auto *separator2 = new QAction(this);
    separator2->setSeparator(true);
    m_view->addActions({m_compare, m_edit, m_pin, m_delete, separator, m_undoAction, m_redoAction, separator2,
                        m_import, m_export});
}

QList<QKeySequence> MemoryDock::redoKeys()
{
    return {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)};
}

void MemoryDock::leaveUndoKeysToWindow()
{
    // Two actions with the same key active at once would both be ambiguous and neither would fire; the
    // window's Edit > Undo and Redo ask undoStack() when the focus is in this dock.
    m_undoAction->setShortcuts({});
    m_redoAction->setShortcuts({});
}

bool MemoryDock::ensureOpen()
{
    if (m_opening == Opening::Open)
        return true;
    if (m_opening == Opening::Asking)
        return false;
    m_opening = Opening::Asking;
    if (!m_model) {
        auto *context = m_context;
        m_model = new ExperienceListModel(
            [context](const ExperiencePageRequest &request) { return context->memoryPage(request); }, this);
        connect(m_context, &AppContext::memoryPaged, m_model, &ExperienceListModel::pageArrived);
        connect(m_model, &ExperienceListModel::listed, this, &MemoryDock::listed);
        connect(m_model, &ExperienceListModel::stale, this, &MemoryDock::refresh);
        m_view->setModel(m_model);
        QHeaderView *header = m_view->horizontalHeader();
        header->setSectionResizeMode(QHeaderView::Interactive);
        header->setSectionResizeMode(ExperienceListModel::Title, QHeaderView::Stretch);
        const int digit = m_view->fontMetrics().horizontalAdvance(QLatin1Char('0'));
        header->resizeSection(ExperienceListModel::Pinned, digit * 3);
        header->setMinimumSectionSize(digit * 3);
        header->resizeSection(ExperienceListModel::Task, digit * 11);
        header->resizeSection(ExperienceListModel::Target, digit * 6);
        header->resizeSection(ExperienceListModel::Speedup, digit * 8);
        header->resizeSection(ExperienceListModel::Shown, digit * 7);
        header->resizeSection(ExperienceListModel::HitRate, digit * 10);
        header->resizeSection(ExperienceListModel::Updated, digit * 17);
        connect(header, &QHeaderView::sortIndicatorChanged, header,
                [header] { header->setSortIndicatorShown(true); });
        connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MemoryDock::showSelected);
        connect(m_model, &QAbstractItemModel::modelReset, this, &MemoryDock::updateCount);
    }
    reloadChoices();
    m_refreshing = false;
    m_model->setFilter(currentFilter());
    return false;
}

void MemoryDock::listed(bool ok, qint64, int keepRow)
{
    if (!ok) {
        if (m_opening != Opening::Open) {
            // The first list is what opens the memory: its failure is that the memory cannot be opened.
            m_opening = Opening::Failed;
            m_count->setText(tr("The memory cannot be opened"));
            m_count->setToolTip(m_model->lastError());
            m_selected.reset();
            m_detail->setExperience(std::nullopt, {});
            updateActions();
            return;
        }
        failed(m_refreshing ? tr("The memory could not be read") : tr("The search failed"));
        return;
    }
    m_opening = Opening::Open;
    updateCount();
    if (keepRow >= 0) {
        selectRow(keepRow);
    } else {
        m_view->selectionModel()->clearSelection();
        m_selected.reset();
        m_detail->setExperience(std::nullopt, {});
    }
    updateActions();
}

MemoryFilter MemoryDock::currentFilter() const
{
    MemoryFilter f;
    f.text = m_search->text();
    f.task = m_task->currentData().toString();
    f.target = m_target->currentData().toString();
    f.sessionId = m_session->currentData().toString();
    f.kind = MemoryFilter::Kind(m_kind->currentData().toInt());
    f.pinnedOnly = m_pinnedOnly->isChecked();
    f.minSpeedup = m_minSpeedup->value();
    f.maxSpeedup = m_maxSpeedup->value();
    if (const int days = m_since->currentData().toInt(); days > 0)
        f.since = QDateTime::currentDateTimeUtc().date().addDays(1 - days);
    return f;
}

bool MemoryDock::isIdle() const
{
    return (!m_model || !m_model->isWaiting()) && m_choicesJob == 0 && m_detailJob == 0 && m_fresh.isEmpty() &&
           m_changes.isEmpty() && m_importJob == 0 && m_exportJob == 0;
}

void MemoryDock::reloadChoices()
{
    m_choicesJob = m_context->memoryChoices();
}

void MemoryDock::applyFilterNow()
{
    m_debounce->stop();
    if (!m_model || m_opening != Opening::Open)
        return;
    m_refreshing = false;
    m_model->setFilter(currentFilter(), selectedId());
}

void MemoryDock::refresh()
{
    if (!m_model || m_opening != Opening::Open)
        return;
    m_stale = false;
    reloadChoices();
    m_refreshing = true;
    m_model->refresh(selectedId());
}

void MemoryDock::updateCount()
{
    if (m_opening != Opening::Open)
        return;
    m_count->setText(tr("%1 of %2 experiences")
                         .arg(QLocale::system().toString(m_model->rowCount()),
                              QLocale::system().toString(m_model->storeCount())) +
                     (m_model->relevanceSkipped() ? tr(", newest first") : QString()));
    m_count->setToolTip(m_model->relevanceSkipped()
                            ? tr("Over %1 experiences match, too many to rank by how well they match: add a word, "
                                 "or sort by a column.")
                                  .arg(QLocale::system().toString(ExperienceListModel::relevanceLimit))
                            : QString());
}

qint64 MemoryDock::selectedId() const
{
    if (!m_model)
        return 0;
    const QModelIndex current = m_view->selectionModel()->currentIndex();
    return current.isValid() && m_view->selectionModel()->isRowSelected(current.row())
               ? m_model->idAt(current.row())
               : 0;
}

void MemoryDock::selectRow(int row)
{
    const QModelIndex index = m_model->index(row, ExperienceListModel::Title);
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

void MemoryDock::selectId(qint64 id)
{
    if (!m_model)
        return;
    const int row = id > 0 ? m_model->rowOf(id) : -1;
    if (row >= 0) {
        selectRow(row);
        return;
    }
    if (id > 0) {
        m_refreshing = true;
        m_model->refresh(id); // not among the rows here: the list finds its row
        return;
    }
    m_view->selectionModel()->clearSelection();
    m_selected.reset();
    m_detail->setExperience(std::nullopt, {});
    updateActions();
}

void MemoryDock::showSelected()
{
    const qint64 id = selectedId();
    if (id <= 0) {
        m_detailJob = 0;
        m_selected.reset();
        m_detail->setExperience(std::nullopt, {});
        updateActions(std::nullopt);
        return;
    }
    m_detailJob = m_context->loadExperience(id);
}

void MemoryDock::updateActions()
{
    const qint64 id = selectedId();
    updateActions(m_selected && m_selected->id == id ? m_selected : std::nullopt);
}

void MemoryDock::updateActions(const std::optional<ExperienceRecord> &record)
{
    for (QAction *a : {m_compare, m_edit, m_pin, m_delete})
        a->setEnabled(record.has_value());
    m_compare->setEnabled(record && !record->slowHash.isEmpty() && !record->fastHash.isEmpty() &&
                          !record->sessionId.isEmpty());
    m_pin->setText(record && record->pinned ? tr("Un&pin") : tr("&Pin"));
    m_import->setEnabled(m_opening == Opening::Open);
    m_export->setEnabled(m_opening == Opening::Open);
}

void MemoryDock::failed(const QString &what, const QString &reason)
{
    m_prompts->warn(this, tr("Memory"), QStringLiteral("%1: %2").arg(what, reason));
}

void MemoryDock::failed(const QString &what)
{
    failed(what, m_model ? m_model->lastError() : QString());
}

void MemoryDock::withFreshSelected(
    std::function<void(const ExperienceRecord &, const QList<RetrievalRecord> &)> then)
{
    const qint64 id = selectedId();
    if (id > 0)
        m_fresh.insert(m_context->loadExperience(id), std::move(then));
}

void MemoryDock::push(const QString &text, std::function<quint64()> apply, std::function<quint64()> revert,
                      const QString &failure)
{
    // Each step remembers what to say should the engine refuse it.
    m_undo->push(new MemoryUndoCommand(
        text,
        [this, apply, failure] {
            const quint64 job = apply();
            m_changes.insert(job, failure);
            return job;
        },
        [this, revert, failure] {
            const quint64 job = revert();
            m_changes.insert(job, failure);
            return job;
        }));
}

void MemoryDock::changeAnswered(quint64 job, const QString &error)
{
    if (!m_changes.contains(job))
        return; // not a step of this dock's
    const QString failure = m_changes.take(job);
    const qint64 next = m_selectAfter.take(job);
    if (!error.isEmpty()) {
        dropFailed(job);
        failed(failure, error);
        refresh();
        return;
    }
    m_stale = false;
    reloadChoices();
    m_refreshing = true;
    m_model->refresh(next > 0 ? next : next < 0 ? 0 : selectedId());
}

void MemoryDock::dropFailed(quint64 job)
{
    // An obsolete command is deleted by the stack's next undo or redo of it, without running again: drop it
    // now, so the stack never claims a change the file does not have.
    for (int i = 0; i < m_undo->count(); ++i) {
        auto *command = const_cast<MemoryUndoCommand *>(static_cast<const MemoryUndoCommand *>(m_undo->command(i)));
        if (command->job() != job)
            continue;
        command->setObsolete(true);
        if (command->lastWasRedo() && i == m_undo->index() - 1)
            m_undo->undo();
        else if (!command->lastWasRedo() && i == m_undo->index())
            m_undo->redo();
        return;
    }
}

void MemoryDock::editSelected()
{
    // The detail's record is the one to edit when it is the selection's; else it is read first.
    if (m_selected && m_selected->id == selectedId() && selectedId() > 0)
        openEditor(*m_selected);
    else
        withFreshSelected([this](const ExperienceRecord &record, const QList<RetrievalRecord> &) {
            openEditor(record);
        });
}

void MemoryDock::openEditor(const ExperienceRecord &record)
{
    ExperienceEditDialog dialog(record.experience.title, record.experience.lesson, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QString title = dialog.title(), lesson = dialog.lesson();
    if (title == record.experience.title && lesson == record.experience.lesson)
        return;
    const qint64 id = record.id;
    const QString oldTitle = record.experience.title, oldLesson = record.experience.lesson;
    AppContext *context = m_context;
    push(tr("Edit \"%1\"").arg(title.left(40)),
         [=] { return context->editExperience(id, title, lesson); },
         [=] { return context->editExperience(id, oldTitle, oldLesson); },
         tr("The experience could not be changed"));
}

void MemoryDock::togglePinSelected()
{
    withFreshSelected([this](const ExperienceRecord &record, const QList<RetrievalRecord> &) {
        const qint64 id = record.id;
        const bool pin = !record.pinned;
        AppContext *context = m_context;
        push((pin ? tr("Pin \"%1\"") : tr("Unpin \"%1\"")).arg(record.experience.title.left(40)),
             [=] { return context->pinExperience(id, pin); }, [=] { return context->pinExperience(id, !pin); },
             tr("The experience could not be pinned or unpinned"));
    });
}

void MemoryDock::deleteSelected()
{
    withFreshSelected([this](const ExperienceRecord &kept, const QList<RetrievalRecord> &retrievals) {
        AppContext *context = m_context;
        push(
            tr("Delete \"%1\"").arg(kept.experience.title.left(40)),
            [=, this] {
                // The next experience takes the deleted one's place, so Delete can be pressed again.
                const int row = m_model->rowOf(kept.id);
                qint64 next = row >= 0 ? m_model->idAt(row + 1) : 0;
                if (next <= 0 && row > 0)
                    next = m_model->idAt(row - 1);
                const quint64 job = context->removeExperience(kept.id);
                m_selectAfter.insert(job, next > 0 ? next : -1);
                return job;
            },
            [=, this] {
                const quint64 job = context->restoreExperience(kept, retrievals);
                m_selectAfter.insert(job, kept.id);
                return job;
            },
            tr("The experience could not be deleted or restored"));
    });
}

void MemoryDock::compareSelected()
{
    withFreshSelected([this](const ExperienceRecord &record, const QList<RetrievalRecord> &) {
        if (record.slowHash.isEmpty() || record.fastHash.isEmpty() || record.sessionId.isEmpty()) {
            m_prompts->inform(this, tr("Open in Compare"),
                              tr("This experience does not name the kernels it came from (it was imported or added "
                                 "by hand), so there is no pair to compare. Its snippets are shown here."));
            return;
        }
        Q_EMIT compareRequested(record);
    });
}

void MemoryDock::importFile()
{
    if (m_opening != Opening::Open) {
        ensureOpen();
        return;
    }
    const QStringList files = m_prompts->openFileNames(this, QString());
    if (files.isEmpty())
        return;
    m_importJob = m_context->importMemory(files.first()); // read, checked and added on the engine's thread
}

void MemoryDock::exportFile()
{
    if (m_opening != Opening::Open) {
        ensureOpen();
        return;
    }
    const QString path = m_prompts->exportFileName(this, tr("Export Memory"), tr("Memory export (*.json)"));
    if (path.isEmpty())
        return;
    m_exportJob = m_context->exportMemory(path);
}
