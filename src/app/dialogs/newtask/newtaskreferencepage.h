#pragma once

#include <QWizardPage>

class KernelEditor;
class NewTaskWizard;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;

// The wizard's third page: the reference that says what the kernel must compute, written here (from a
// template made from the inputs) or taken from a file (numpy `forward(*inputs)`, or a KernelBench PyTorch
// `class Model`), and the relative tolerance the kernel's results are held to.
class NewTaskReferencePage : public QWizardPage
{
    Q_OBJECT
public:
    explicit NewTaskReferencePage(NewTaskWizard *wizard);

    void initializePage() override;
    bool isComplete() const override;

    QString referenceSource() const; // the text written here; empty when a file was chosen
    QString referenceFile() const;   // the file chosen (read on the engine's thread); empty when written here
    double tolerance() const;        // 0 when the field does not hold a positive number
    // The numpy reference a user starts from: forward() over the inputs, in float64, returning float32.
    QString templateText() const;

    QRadioButton *writeRadio() const { return m_write; }
    QRadioButton *fileRadio() const { return m_file; }
    QLineEdit *fileEdit() const { return m_fileEdit; }
    KernelEditor *editor() const { return m_editor; }
    QLineEdit *toleranceEdit() const { return m_tolerance; }
    QLabel *problemLabel() const { return m_problem; }

private:
    void update();

    NewTaskWizard *m_wizard;
    QRadioButton *m_write, *m_file;
    QLineEdit *m_fileEdit;
    QPushButton *m_browse;
    KernelEditor *m_editor;
    QLineEdit *m_tolerance;
    QLabel *m_problem;
    bool m_complete = false;
    QString m_template; // the last template put in the editor, replaced while the user has not edited it
};
