#include "logdock.h"

#include "common/loghub.h"
#include "logfiltermodel.h"
#include "logmodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

LogDock::LogDock(QWidget *parent) : QDockWidget(tr("Log"), parent)
{
    setObjectName(QStringLiteral("LogDock"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(2, 2, 2, 2);

    auto *filters = new QHBoxLayout();
    m_level = new QComboBox(body);
    m_level->addItem(tr("Debug and above"), 0);
    m_level->addItem(tr("Info and above"), 1);
    m_level->addItem(tr("Warnings and errors"), 2);
    m_level->addItem(tr("Errors only"), 3);
    m_level->setCurrentIndex(1);
    m_category = new QComboBox(body);
    m_category->addItem(tr("All categories"), QString());
    filters->addWidget(new QLabel(tr("Show:"), body));
    filters->addWidget(m_level);
    filters->addWidget(m_category);
    filters->addStretch(1);
    layout->addLayout(filters);

    m_model = new LogModel(LogHub::instance(), this);
    m_filter = new LogFilterModel(this);
    m_filter->setSourceModel(m_model);
    m_filter->setMinimumSeverity(m_level->currentData().toInt());
    for (const QString &category : m_model->categories())
        m_category->addItem(category, category);

    m_view = new QTableView(body);
    m_view->setModel(m_filter);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 4);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setWordWrap(false);
    m_view->setShowGrid(false);
    layout->addWidget(m_view, 1);
    setWidget(body);

    connect(m_level, &QComboBox::currentIndexChanged, this,
            [this] { m_filter->setMinimumSeverity(m_level->currentData().toInt()); });
    connect(m_category, &QComboBox::currentIndexChanged, this,
            [this] { m_filter->setCategory(m_category->currentData().toString()); });
    connect(m_model, &LogModel::categoryAdded, this,
            [this](const QString &category) { m_category->addItem(category, category); });
    // Follow new records only while the user is already at the bottom, so reading older lines is not
    // disturbed.
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, [this] {
        QScrollBar *bar = m_view->verticalScrollBar();
        if (bar->value() >= bar->maximum() - 2)
            m_view->scrollToBottom();
    });
}
