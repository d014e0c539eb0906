#pragma once

#include <QDialog>
#include <memory>

namespace Ui {
class AboutDialog;
}

// Versions of the workbench and every library it runs on, selectable so users can paste them into bug
// reports.
class AboutDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AboutDialog(QWidget *parent = nullptr);
    ~AboutDialog() override;

    static QStringList components();

private:
    std::unique_ptr<Ui::AboutDialog> m_ui;
};
