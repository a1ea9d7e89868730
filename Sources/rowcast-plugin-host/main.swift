import RowCastCore
PluginHostMain.run()
