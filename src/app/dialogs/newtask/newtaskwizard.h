#pragma once

#include "model/kernelfunctions.h"
#include "model/taskdraft.h"

#include <QWizard>

class AppContext;
class NewTaskCheckPage;
class NewTaskInputsPage;
class NewTaskKernelPage;
class NewTaskReferencePage;
class UserPrompts;

// New Task from This Kernel…: makes a task (inputs, a reference, a tolerance) for a kernel that solves none
// of the listed ones, in four pages: the kernel function, its inputs and where the task goes, the reference,
// and the runner's check. Finish creates the task only when the check passes (TaskCreation); until then
// nothing is written where a task would be seen. Accepted means the task exists: createdFolder() names it.
class NewTaskWizard : public QWizard
{
    Q_OBJECT
public:
    struct Kernel
    {
        QString name;   // the tab's
        QString path;   // empty for an unsaved kernel
        QString source; // the editor's text, which may differ from the file
    };
    enum PageId
    {
        KernelPageId,
        InputsPageId,
        ReferencePageId,
        CheckPageId
    };

    // shippedDir: the NKIBench tasks, so a new task cannot take a name one of them has.
    // context: whose engine reads the reference file and runs the check.
    NewTaskWizard(AppContext *context, const Kernel &kernel, const QString &shippedDir, UserPrompts *prompts,
                  QWidget *parent = nullptr);
    ~NewTaskWizard() override;

    const Kernel &kernel() const { return m_kernel; }
    QString shippedDir() const { return m_shippedDir; }
    UserPrompts *prompts() const { return m_prompts; }
    AppContext *context() const { return m_context; }

    // What the pages say so far, put together.
    QString functionName() const;
    QStringList parameters() const;
    // The reference is the draft's text when written in the wizard; when a file was chosen, referenceFile()
    // names it and the engine reads it at Check and Create (the draft's text is empty then).
    TaskDraft draft() const;
    QString referenceFile() const;
    QString parentDir() const;

    // Valid once accepted.
    QString createdFolder() const { return m_createdFolder; }
    QString createdName() const { return m_createdName; }
    void setCreated(const QString &folder, const QString &name);

    NewTaskKernelPage *kernelPage() const { return m_kernelPage; }
    NewTaskInputsPage *inputsPage() const { return m_inputsPage; }
    NewTaskReferencePage *referencePage() const { return m_referencePage; }
    NewTaskCheckPage *checkPage() const { return m_checkPage; }

    // The one line the Help menu and the welcome page say about making a task.
    static QString howItWorks();
    // Rich text in the colours the other dialogs use for a problem and for a passed check (already escaped).
    static QString errorHtml(const QString &html);
    static QString okHtml(const QString &html);

private:
    AppContext *m_context;
    Kernel m_kernel;
    QString m_shippedDir;
    UserPrompts *m_prompts;
    NewTaskKernelPage *m_kernelPage;
    NewTaskInputsPage *m_inputsPage;
    NewTaskReferencePage *m_referencePage;
    NewTaskCheckPage *m_checkPage;
    QString m_createdFolder, m_createdName;
};
