#include "sessionsdock.h"

#include "appcontext.h"
#include "itemmodels/modelroles.h"
#include "itemmodels/sessionlistmodel.h"
#include "userprompts.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

SessionsDock::SessionsDock(AppContext *context, UserPrompts *prompts, QWidget *parent)
    : QDockWidget(tr("Sessions"), parent), m_context(context), m_prompts(prompts)
{
    setObjectName(QStringLiteral("SessionsDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(context->sessions());
    m_sorted->setSortRole(ModelRoles::SortValue);
    m_view = new QTableView(body);
    m_view->setObjectName(QStringLiteral("sessionsView"));
    m_view->setModel(m_sorted);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(SessionListModel::Started, Qt::DescendingOrder);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setAlternatingRowColors(true);
    layout->addWidget(m_view, 1);

    auto *buttons = new QHBoxLayout();
    m_open = new QPushButton(tr("&Open"), body);
    m_resume = new QPushButton(tr("&Resume"), body);
    m_export = new QPushButton(tr("&Export…"), body);
    m_delete = new QPushButton(tr("&Delete…"), body);
    m_open->setObjectName(QStringLiteral("openSessionButton"));
    m_resume->setObjectName(QStringLiteral("resumeSessionButton"));
    m_export->setObjectName(QStringLiteral("exportSessionButton"));
    m_delete->setObjectName(QStringLiteral("deleteSessionButton"));
    for (QPushButton *b : {m_open, m_resume, m_export, m_delete}) {
        // As narrow as their words: the style's wide default made the left column too wide for the editor's
        // 80 columns on a 1280-pixel screen.
        b->setMinimumWidth(b->fontMetrics().horizontalAdvance(QString(b->text()).remove(u'&')) + 16);
        buttons->addWidget(b);
    }
    buttons->addStretch(1);
    layout->addLayout(buttons);
    setWidget(body);

    connect(m_view, &QAbstractItemView::activated, this, [this] { Q_EMIT openRequested(selectedSession()); });
    connect(m_open, &QPushButton::clicked, this, [this] { Q_EMIT openRequested(selectedSession()); });
    connect(m_resume, &QPushButton::clicked, this, [this] { Q_EMIT resumeRequested(selectedSession()); });
    connect(m_export, &QPushButton::clicked, this, [this] { Q_EMIT exportRequested(selectedSession()); });
    connect(m_delete, &QPushButton::clicked, this, &SessionsDock::deleteSelected);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SessionsDock::refreshButtons);
    connect(m_sorted, &QAbstractItemModel::dataChanged, this, &SessionsDock::refreshButtons);
    connect(m_sorted, &QAbstractItemModel::rowsInserted, this, &SessionsDock::refreshButtons);
    connect(m_sorted, &QAbstractItemModel::rowsRemoved, this, &SessionsDock::refreshButtons);
    connect(context, &AppContext::searchingChanged, this, &SessionsDock::refreshButtons);
    connect(context, &AppContext::sessionDeleted, this,
            [this](quint64, const QString &sessionId, const QString &error) {
                if (!error.isEmpty())
                    m_prompts->warn(this, tr("Delete session"),
                                    tr("Session %1 was not deleted: %2").arg(sessionId.left(8), error));
            });

    // Sessions started elsewhere (the CLI, another window) appear without a click; polling is one small
    // query on the engine's thread, and only while the list is in sight.
    auto *poll = new QTimer(this);
    poll->setInterval(3000);
    connect(poll, &QTimer::timeout, this, [this] {
        if (isVisible())
            m_context->refreshSessions();
    });
    poll->start();
    context->refreshSessions();
    refreshButtons();
}

QString SessionsDock::selectedSession() const
{
    return m_view->currentIndex().data(ModelRoles::SessionId).toString();
}

void SessionsDock::selectSession(const QString &sessionId)
{
    const QModelIndex source = m_context->sessions()->indexOf(sessionId);
    if (source.isValid())
        m_view->setCurrentIndex(m_sorted->mapFromSource(source));
}

void SessionsDock::refreshButtons()
{
    const QString id = selectedSession();
    const SessionSummary *s = m_context->sessions()->session(id);
    const bool running = s && (s->live || id == m_context->runningSessionId());
    m_open->setEnabled(s != nullptr);
    m_resume->setEnabled(s && !running && !m_context->isSearching());
    m_export->setEnabled(s && s->bestLatencyMs.has_value());
    m_delete->setEnabled(s && !running);
    m_delete->setToolTip(running ? tr("A running session cannot be deleted; stop it first") : QString());
}

void SessionsDock::deleteSelected()
{
    const QString id = selectedSession();
    const SessionSummary *s = m_context->sessions()->session(id);
    if (!s)
        return;
    const QString question =
        tr("Delete session %1 (%2, started %3) with its %4 candidates, plans and model calls? "
           "This cannot be undone. Lessons it added to the optimization memory stay.")
            .arg(id.left(8), s->session.taskName, s->session.created.toLocalTime().toString(Qt::ISODate))
            .arg(s->candidates);
    if (m_prompts->confirm(this, tr("Delete session"), question))
        m_context->deleteSession(id);
}
