#include "newtaskinputspage.h"

#include "model/kernelfunctions.h"
#include "model/taskcatalog.h"
#include "model/tasklocations.h"
#include "newtaskwizard.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDir>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace {
const QStringList dtypes{QStringLiteral("float32"), QStringLiteral("bfloat16"), QStringLiteral("float16"),
                         QStringLiteral("int32")};

QLabel *pathLine(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setForegroundRole(QPalette::PlaceholderText);
    label->setContentsMargins(24, 0, 0, 4); // under its radio button's text
    label->setWordWrap(true);
    return label;
}
} // namespace

NewTaskInputsPage::NewTaskInputsPage(NewTaskWizard *wizard)
    : QWizardPage(wizard), m_wizard(wizard), m_table(new QTableWidget(0, 4, this)),
      m_problems(new QLabel(this)), m_name(new QLineEdit(this)),
      m_project(new QRadioButton(tr("With the &project"), this)),
      m_user(new QRadioButton(tr("In &your tasks"), this)), m_projectPath(pathLine(this)),
      m_userPath(pathLine(this))
{
    setTitle(tr("Inputs"));
    setSubTitle(
        tr("The arrays the kernel is called with, one row per parameter. Shapes are sizes joined by x."));

    m_table->setObjectName(QStringLiteral("inputsTable"));
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Shape"), tr("Dtype"), tr("Small shape")});
    m_table->horizontalHeaderItem(SmallColumn)
        ->setToolTip(tr("The shape Benchmark's small size uses; empty: the full shape"));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DtypeColumn, QHeaderView::ResizeToContents);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::AllEditTriggers);
    m_problems->setObjectName(QStringLiteral("inputsProblem"));
    m_problems->setWordWrap(true);
    m_problems->setTextFormat(Qt::RichText);
    m_name->setObjectName(QStringLiteral("taskNameEdit"));
    m_project->setObjectName(QStringLiteral("projectRadio"));
    m_user->setObjectName(QStringLiteral("userRadio"));

    const QString kernelPath = wizard->kernel().path;
    m_projectPath->setText(kernelPath.isEmpty()
                               ? tr("Save the kernel first: a project task lives beside its kernel.")
                               : QDir::toNativeSeparators(TaskLocations::newProjectTasksDir(kernelPath)));
    m_userPath->setText(QDir::toNativeSeparators(TaskLocations::userTasksDir()));
    m_project->setEnabled(!kernelPath.isEmpty());
    (kernelPath.isEmpty() ? m_user : m_project)->setChecked(true);
    auto *where = new QButtonGroup(this);
    where->addButton(m_project);
    where->addButton(m_user);

    auto *form = new QFormLayout();
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Task na&me:") /* Alt+N is Next */, m_name);
    auto *places = new QVBoxLayout();
    places->setSpacing(2);
    places->addWidget(m_project);
    places->addWidget(m_projectPath);
    places->addWidget(m_user);
    places->addWidget(m_userPath);
    form->addRow(tr("Saved:"), places);

    auto *layout = new QVBoxLayout(this);
    auto *smallNote = new QLabel(tr("The small shape is for quick runs (the run target's small size); left "
                                    "empty, it is the full shape."),
                                 this);
    smallNote->setWordWrap(true);
    smallNote->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_table);
    layout->addWidget(smallNote);
    layout->addWidget(m_problems);
    layout->addSpacing(6);
    layout->addLayout(form);
    layout->addStretch(1);

    connect(m_table, &QTableWidget::itemChanged, this, [this] {
        m_complete = check();
        Q_EMIT completeChanged();
    });
    connect(m_name, &QLineEdit::textEdited, this, [this] {
        m_nameEdited = true;
        m_complete = check();
        Q_EMIT completeChanged();
    });
}

void NewTaskInputsPage::initializePage()
{
    if (!m_nameEdited)
        m_name->setText(m_wizard->functionName());
    if (m_filledFor != m_wizard->parameters())
        fillRows();
    m_complete = check();
    Q_EMIT completeChanged();
}

void NewTaskInputsPage::fillRows()
{
    m_filledFor = m_wizard->parameters();
    const QHash<QString, KernelFunctions::ShapeHint> hints =
        KernelFunctions::shapeHints(m_wizard->kernel().source);
    const QSignalBlocker blocker(m_table);
    m_table->setRowCount(0);
    for (const QString &parameter : std::as_const(m_filledFor)) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto *name = new QTableWidgetItem(parameter);
        name->setFlags(Qt::ItemIsEnabled); // the kernel's parameter: renamed in the kernel, not here
        m_table->setItem(row, NameColumn, name);
        const KernelFunctions::ShapeHint hint = hints.value(parameter);
        m_table->setItem(row, ShapeColumn, new QTableWidgetItem(TaskDraft::shapeText(hint.shape)));
        m_table->setItem(row, SmallColumn, new QTableWidgetItem());
        auto *dtype = new QComboBox(m_table);
        dtype->addItems(dtypes);
        if (!hint.dtype.isEmpty() && !dtypes.contains(hint.dtype))
            dtype->addItem(hint.dtype);
        dtype->setCurrentText(hint.dtype.isEmpty() ? dtypes.first() : hint.dtype);
        m_table->setCellWidget(row, DtypeColumn, dtype);
    }
    // As tall as its rows, up to eight: a kernel has few parameters, and the page's room goes below.
    const int shown = std::clamp(int(m_table->rowCount()), 1, 8);
    const int rowHeight =
        m_table->rowCount() > 0 ? m_table->rowHeight(0) : m_table->fontMetrics().height() + 8;
    m_table->setFixedHeight(m_table->horizontalHeader()->sizeHint().height() + shown * rowHeight +
                            2 * m_table->frameWidth() + 2);
}

bool NewTaskInputsPage::check()
{
    QStringList problems;
    const QSignalBlocker blocker(m_table); // marking a cell is not an edit
    const QList<TaskDraft::Input> all = inputs();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QString parameter = m_table->item(row, NameColumn)->text();
        for (int column : {ShapeColumn, SmallColumn}) {
            QTableWidgetItem *cell = m_table->item(row, column);
            const QString text = cell->text().trimmed();
            QString error;
            bool ok = true;
            if (text.isEmpty()) {
                ok = column == SmallColumn;
                error = tr("give its shape");
            } else {
                TaskDraft::Input parsed;
                ok = TaskDraft::parseInput(QStringLiteral("%1=%2").arg(parameter, text), parsed, error);
                if (ok && column == SmallColumn && row < all.size() &&
                    parsed.shape.size() != all.at(row).shape.size()) {
                    ok = false;
                    error = tr("the small shape needs as many sizes as the full one");
                }
            }
            cell->setBackground(ok ? QBrush() : QBrush(QColor(0xffcdd2)));
            cell->setForeground(ok ? QBrush() : QBrush(QColor(0xb71c1c)));
            cell->setToolTip(ok ? QString() : error);
            // The core's words are the CLI's ("--input x: ..."): the row already names the input here.
            static const QRegularExpression cliPrefix(QStringLiteral("^--input \\S+:\\s*"));
            error.remove(cliPrefix);
            if (!ok)
                problems << tr("%1, %2 “%3”: %4.")
                                .arg(parameter, column == ShapeColumn ? tr("shape") : tr("small shape"), text,
                                     error);
        }
    }
    if (m_table->rowCount() == 0)
        problems << tr("The kernel has no parameters: a task's inputs are passed to it.");
    QString error;
    const QString name = taskName();
    if (!TaskDraft::validName(name, error))
        problems << tr("Task name: %1").arg(error);
    else if (const auto existing = TaskCatalog::find(name, m_wizard->shippedDir(), m_wizard->kernel().path))
        problems << tr("A task named %1 already exists (%2): choose another name.")
                        .arg(name, QDir::toNativeSeparators(existing->folder));
    QStringList escaped;
    for (const QString &p : std::as_const(problems))
        escaped << p.toHtmlEscaped();
    m_problems->setText(NewTaskWizard::errorHtml(escaped.join(QStringLiteral("<br>"))));
    m_problems->setVisible(!problems.isEmpty());
    return problems.isEmpty();
}

bool NewTaskInputsPage::isComplete() const
{
    return m_complete;
}

QList<TaskDraft::Input> NewTaskInputsPage::inputs() const
{
    QList<TaskDraft::Input> result;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        TaskDraft::Input input;
        const QString name = m_table->item(row, NameColumn)->text();
        const auto *dtype = qobject_cast<QComboBox *>(m_table->cellWidget(row, DtypeColumn));
        const QString spec = QStringLiteral("%1=%2:%3")
                                 .arg(name, m_table->item(row, ShapeColumn)->text().trimmed(),
                                      dtype ? dtype->currentText() : dtypes.first());
        QString error;
        if (!TaskDraft::parseInput(spec, input, error))
            input = TaskDraft::Input{name, {}, {}, dtype ? dtype->currentText() : dtypes.first()};
        TaskDraft::Input small;
        const QString smallText = m_table->item(row, SmallColumn)->text().trimmed();
        if (!smallText.isEmpty() && TaskDraft::parseInput(name + u'=' + smallText, small, error))
            input.smallShape = small.shape;
        result << input;
    }
    return result;
}

QString NewTaskInputsPage::taskName() const
{
    return m_name->text().trimmed();
}

QString NewTaskInputsPage::parentDir() const
{
    return m_project->isChecked() ? TaskLocations::newProjectTasksDir(m_wizard->kernel().path)
                                  : TaskLocations::userTasksDir();
}
