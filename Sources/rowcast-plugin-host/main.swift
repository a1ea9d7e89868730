import RowCastPluginHosting
PluginHostMain.run()
