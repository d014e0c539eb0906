#pragma once

#include "model/kernelfunctions.h"

#include <QWizardPage>

#include <optional>

class NewTaskWizard;
class QComboBox;
class QLabel;

// The wizard's first page: which function of the file is the kernel, by the runner's rule (KernelFunctions),
// and its signature, whose parameters become the task's inputs. A file with no kernel function stops here,
// saying how to mark one.
class NewTaskKernelPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit NewTaskKernelPage(NewTaskWizard *wizard);

    std::optional<KernelFunctions::Function> function() const;
    bool isComplete() const override;

    QComboBox *functionCombo() const { return m_combo; }
    QLabel *errorLabel() const { return m_error; }
    QLabel *signatureLabel() const { return m_signature; }

private:
    void showSignature();

    NewTaskWizard *m_wizard;
    QList<KernelFunctions::Function> m_choices; // the @nki.jit functions, or the one the rule picks
    QComboBox *m_combo;
    QLabel *m_functionName;
    QLabel *m_signature;
    QLabel *m_error;
};
