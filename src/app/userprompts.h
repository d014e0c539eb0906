#pragma once

#include <QString>
#include <QStringList>

class QWidget;

// Every question the workbench asks the user goes through here. The default answers with real dialogs;
// tests replace it so they can script the answers and read the messages instead of blocking on a modal box.
class UserPrompts
{
public:
    enum class SaveChoice
    {
        Save,
        Discard,
        Cancel
    };

    virtual ~UserPrompts() = default;
    virtual void warn(QWidget *parent, const QString &title, const QString &text);
    virtual SaveChoice askSaveChanges(QWidget *parent, const QString &documentName);
    virtual QStringList openFileNames(QWidget *parent, const QString &startDir);
    virtual QString saveFileName(QWidget *parent, const QString &suggestedPath);
};
