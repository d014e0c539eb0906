#pragma once

#include "model/taskdraft.h"

#include <QWizardPage>

class NewTaskWizard;
class QLabel;
class QLineEdit;
class QRadioButton;
class QTableWidget;

// The wizard's second page: one row per kernel parameter (its full shape, dtype and a small shape for quick
// runs, prefilled from what the file says), the task's name, and whether it is kept with the project (beside
// the kernel, so the repository carries it) or in the user's own tasks.
class NewTaskInputsPage : public QWizardPage
{
    Q_OBJECT
public:
    enum Column
    {
        NameColumn,
        ShapeColumn,
        DtypeColumn,
        SmallColumn
    };

    explicit NewTaskInputsPage(NewTaskWizard *wizard);

    void initializePage() override;
    bool isComplete() const override;

    QList<TaskDraft::Input> inputs() const;
    QString taskName() const;
    QString parentDir() const;

    QTableWidget *table() const { return m_table; }
    QLabel *problemLabel() const { return m_problems; }
    QLineEdit *nameEdit() const { return m_name; }
    QRadioButton *projectRadio() const { return m_project; }
    QRadioButton *userRadio() const { return m_user; }

private:
    void fillRows();
    // Reads every row and the name, marks what is wrong, and says it under the table; true when all is well.
    bool check();

    NewTaskWizard *m_wizard;
    QStringList m_filledFor; // the parameters the rows were made for
    QTableWidget *m_table;
    QLabel *m_problems;
    QLineEdit *m_name;
    QRadioButton *m_project, *m_user;
    QLabel *m_projectPath, *m_userPath;
    bool m_complete = false;
    bool m_nameEdited = false;
};
