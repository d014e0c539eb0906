#include "newtaskkernelpage.h"

#include "newtaskwizard.h"

#include <QComboBox>
#include <QDir>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

NewTaskKernelPage::NewTaskKernelPage(NewTaskWizard *wizard)
    : QWizardPage(wizard), m_wizard(wizard), m_combo(new QComboBox(this)), m_functionName(new QLabel(this)),
      m_signature(new QLabel(this)), m_error(new QLabel(this))
{
    setTitle(tr("Kernel"));
    setSubTitle(tr("The function Benchmark and Optimize call. Its parameters are the task's inputs."));
    const NewTaskWizard::Kernel &kernel = wizard->kernel();

    auto *file = new QLabel(kernel.path.isEmpty() ? tr("%1 (not saved)").arg(kernel.name)
                                                  : QDir::toNativeSeparators(kernel.path),
                            this);
    file->setObjectName(QStringLiteral("kernelFileLabel"));
    file->setTextInteractionFlags(Qt::TextSelectableByMouse);
    file->setWordWrap(true);
    m_combo->setObjectName(QStringLiteral("functionCombo"));
    m_functionName->setObjectName(QStringLiteral("functionLabel"));
    m_signature->setObjectName(QStringLiteral("signatureLabel"));
    m_signature->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_signature->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_signature->setWordWrap(true);
    m_error->setObjectName(QStringLiteral("kernelError"));
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::RichText);

    // Several @nki.jit functions: the user says which is the kernel. One: the rule's answer, shown, not
    // asked.
    QString error;
    const QList<KernelFunctions::Function> all = KernelFunctions::all(kernel.source);
    for (const KernelFunctions::Function &f : all)
        if (f.jit)
            m_choices << f;
    if (m_choices.size() <= 1) {
        m_choices.clear();
        if (const auto picked = KernelFunctions::pick(kernel.source, QString(), error))
            m_choices << *picked;
    }
    for (const KernelFunctions::Function &f : std::as_const(m_choices))
        m_combo->addItem(f.name);
    const bool several = m_choices.size() > 1;
    m_combo->setVisible(several);
    m_functionName->setVisible(!several);
    if (!m_choices.isEmpty())
        m_functionName->setText(QStringLiteral("<b>%1</b>").arg(m_choices.first().name.toHtmlEscaped()));
    if (m_choices.isEmpty()) {
        m_functionName->setText(tr("<i>none found</i>"));
        // The rule's own words first (they say what is missing), then what to do here.
        m_error->setText(
            QStringLiteral("%1<br>%2")
                .arg(NewTaskWizard::errorHtml(error.toHtmlEscaped()),
                     tr("Put <code>@nki.jit</code> on the line above the kernel's <code>def</code>, "
                        "then make the task again.")));
    }
    m_error->setVisible(m_choices.isEmpty());

    auto *form = new QFormLayout();
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("File:"), file);
    auto *functionRow = new QVBoxLayout();
    functionRow->setContentsMargins(0, 0, 0, 0);
    functionRow->addWidget(m_combo);
    functionRow->addWidget(m_functionName);
    form->addRow(tr("&Function:"), functionRow);
    form->addRow(tr("Signature:"), m_signature);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addSpacing(8);
    layout->addWidget(m_error);
    layout->addStretch(1);
    if (auto *label = qobject_cast<QLabel *>(form->labelForField(functionRow)))
        label->setBuddy(m_combo);

    connect(m_combo, &QComboBox::currentIndexChanged, this, [this] {
        showSignature();
        Q_EMIT completeChanged();
    });
    showSignature();
}

std::optional<KernelFunctions::Function> NewTaskKernelPage::function() const
{
    const int i = m_choices.size() > 1 ? m_combo->currentIndex() : 0;
    if (i < 0 || i >= m_choices.size())
        return std::nullopt;
    return m_choices.at(i);
}

bool NewTaskKernelPage::isComplete() const
{
    return function().has_value();
}

void NewTaskKernelPage::showSignature()
{
    const auto f = function();
    m_signature->setText(
        f ? tr("def %1(%2)    (line %3)").arg(f->name, f->parameters.join(QStringLiteral(", "))).arg(f->line)
          : QString());
}
