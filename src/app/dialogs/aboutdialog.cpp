#include "aboutdialog.h"

#include "common/buildinfo.h"
#include "ui_aboutdialog.h"

#include <Qsci/qsciglobal.h>

AboutDialog::AboutDialog(QWidget *parent) : QDialog(parent), m_ui(std::make_unique<Ui::AboutDialog>())
{
    m_ui->setupUi(this);
    m_ui->componentsText->setPlainText(components().join(u'\n'));
}

AboutDialog::~AboutDialog() = default;

QStringList AboutDialog::components()
{
    QStringList lines = BuildInfo::coreComponents();
    lines << QStringLiteral("QScintilla %1").arg(QStringLiteral(QSCINTILLA_VERSION_STR));
    return lines;
}
