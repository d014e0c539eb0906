#include "newtaskreferencepage.h"

#include "kerneleditor.h"
#include "model/taskdraft.h"
#include "newtaskinputspage.h"
#include "newtaskwizard.h"
#include "userprompts.h"

#include <QButtonGroup>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace {
constexpr double defaultTolerance = 2e-5;
}

NewTaskReferencePage::NewTaskReferencePage(NewTaskWizard *wizard)
    : QWizardPage(wizard), m_wizard(wizard),
      m_write(new QRadioButton(tr("&Write it here: a numpy forward(*inputs)"), this)),
      m_file(new QRadioButton(tr("From a &file:"), this)), m_fileEdit(new QLineEdit(this)),
      m_browse(new QPushButton(tr("Br&owse…") /* Alt+B is Back */, this)), m_editor(new KernelEditor(this)),
      m_tolerance(new QLineEdit(QStringLiteral("2e-5"), this)), m_problem(new QLabel(this))
{
    setTitle(tr("Reference"));
    setSubTitle(tr("What the kernel must compute: its results are compared with the reference's."));
    m_write->setObjectName(QStringLiteral("writeRadio"));
    m_file->setObjectName(QStringLiteral("fileRadio"));
    m_fileEdit->setObjectName(QStringLiteral("referenceFileEdit"));
    m_fileEdit->setPlaceholderText(
        tr("a numpy forward(*inputs), or a PyTorch KernelBench class Model(nn.Module)"));
    m_browse->setObjectName(QStringLiteral("browseButton"));
    m_editor->setObjectName(QStringLiteral("referenceEditor"));
    m_editor->setUntitledName(QStringLiteral("reference.py"));
    // As wide as its longest line, so a short reference has no horizontal scroll bar.
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETSCROLLWIDTH, 1);
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETSCROLLWIDTHTRACKING, 1);
    m_tolerance->setObjectName(QStringLiteral("toleranceEdit"));
    m_tolerance->setMaximumWidth(120);
    m_problem->setObjectName(QStringLiteral("referenceProblem"));
    m_problem->setWordWrap(true);
    m_problem->setTextFormat(Qt::RichText);
    m_write->setChecked(true);
    auto *how = new QButtonGroup(this);
    how->addButton(m_write);
    how->addButton(m_file);

    auto *fileRow = new QHBoxLayout();
    fileRow->addWidget(m_file);
    fileRow->addWidget(m_fileEdit, 1);
    fileRow->addWidget(m_browse);

    auto *hint =
        new QLabel(tr("The largest relative difference allowed. 2e-5 suits a reference computed in "
                      "float64 and returned as float32; a float32 PyTorch reference needs about 1e-4."),
                   this);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    auto *form = new QFormLayout();
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("&Tolerance:"), m_tolerance);
    form->addRow(QString(), hint); // its own row, so it wraps at the page's width, not the field's

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_write);
    layout->addWidget(m_editor, 1);
    layout->addLayout(fileRow);
    layout->addWidget(m_problem);
    layout->addSpacing(6);
    layout->addLayout(form);

    connect(m_write, &QRadioButton::toggled, this, &NewTaskReferencePage::update);
    connect(m_fileEdit, &QLineEdit::textChanged, this, [this] {
        if (!m_fileEdit->text().isEmpty())
            m_file->setChecked(true);
        update();
    });
    connect(m_tolerance, &QLineEdit::textChanged, this, &NewTaskReferencePage::update);
    connect(m_editor, &QsciScintilla::textChanged, this, &NewTaskReferencePage::update);
    connect(m_browse, &QPushButton::clicked, this, [this] {
        const QString start = QFileInfo(m_wizard->kernel().path).absolutePath();
        const QStringList picked =
            m_wizard->prompts() ? m_wizard->prompts()->openFileNames(this, start) : QStringList();
        if (!picked.isEmpty())
            m_fileEdit->setText(picked.first());
    });
}

QString NewTaskReferencePage::templateText() const
{
    const QList<TaskDraft::Input> inputs = m_wizard->inputsPage()->inputs();
    QStringList names, shapes, casts, args;
    for (const TaskDraft::Input &input : inputs) {
        names << input.name;
        shapes << QStringLiteral("    %1: %2 %3")
                      .arg(input.name, TaskDraft::shapeText(input.shape), input.dtype);
        casts << QStringLiteral("    %1_64 = np.asarray(%1, dtype=np.float64)").arg(input.name);
        args << input.name + QStringLiteral("_64");
    }
    const QString first = args.isEmpty() ? QStringLiteral("0.0") : args.first();
    return QStringLiteral("import numpy as np\n"
                          "\n"
                          "\n"
                          "def forward(%1):\n"
                          "    \"\"\"What %2 computes, for inputs of these shapes:\n"
                          "\n"
                          "%3\n"
                          "\n"
                          "    Computed in float64 and returned as float32, so a 2e-5 tolerance holds.\n"
                          "    \"\"\"\n"
                          "%4\n"
                          "    result = %5  # write the computation here\n"
                          "    return result.astype(np.float32)\n")
        .arg(names.join(QStringLiteral(", ")), m_wizard->functionName(), shapes.join(u'\n'),
             casts.join(u'\n'), first);
}

void NewTaskReferencePage::initializePage()
{
    // The inputs may have changed since the template was made: remake it unless the user has written in it.
    const QString text = m_editor->text();
    if (text.isEmpty() || text == m_template) {
        m_template = templateText();
        m_editor->setText(m_template);
    }
    update();
}

QString NewTaskReferencePage::referenceSource() const
{
    return m_write->isChecked() ? m_editor->text() : QString();
}

QString NewTaskReferencePage::referenceFile() const
{
    return m_write->isChecked() ? QString() : m_fileEdit->text().trimmed();
}

double NewTaskReferencePage::tolerance() const
{
    bool ok = false;
    const double value = m_tolerance->text().trimmed().toDouble(&ok);
    return ok && value > 0 ? value : 0;
}

void NewTaskReferencePage::update()
{
    const bool writing = m_write->isChecked();
    m_editor->setEnabled(writing);
    QString problem;
    if (tolerance() <= 0)
        problem = tr("The tolerance must be a positive number, like %1.").arg(defaultTolerance);
    else if (tolerance() >= 1)
        problem = tr("A tolerance of %1 or more accepts any result: use something like 2e-5.").arg(1);
    if (!writing) {
        const QString path = m_fileEdit->text().trimmed();
        if (path.isEmpty())
            problem = tr("Choose the reference file.");
        else if (!QFileInfo(path).isFile())
            problem = tr("%1 is not a file.").arg(QDir::toNativeSeparators(path));
    } else if (m_editor->text().trimmed().isEmpty()) {
        problem = tr("Write the reference, or choose a file.");
    }
    m_problem->setText(NewTaskWizard::errorHtml(problem.toHtmlEscaped()));
    m_problem->setVisible(!problem.isEmpty());
    m_complete = problem.isEmpty();
    Q_EMIT completeChanged();
}

bool NewTaskReferencePage::isComplete() const
{
    return m_complete;
}
