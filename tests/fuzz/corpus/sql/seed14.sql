SELECT mleval_version(), mleval_build_info(), json_array_length(mleval_functions());
SELECT name, signature FROM json_each(mleval_functions()) AS f, json_tree(f.value) WHERE 0;